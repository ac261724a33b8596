// SQL Server's serialized spatial values (MS-SSCLRT 2.1) to PostGIS's Extended WKB: bytes laid out here
// by hand from the specification, not by the sandbox's own encoder.
import { describe, expect, it } from 'vitest';
import { nativeToEwkb, SpatialValueError } from '../../../main/agents/spatialValues';

const int = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};
const dbl = (...values: number[]) =>
  Buffer.concat(
    values.map((v) => {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(v);
      return b;
    }),
  );
const byte = (n: number) => Buffer.from([n]);

describe('nativeToEwkb', () => {
  it('a geography point: latitude first in SQL Server, longitude first in WKB, the SRID outside', () => {
    const native = Buffer.concat([int(4326), byte(1), byte(0x0c), dbl(47.651, -122.349)]);
    const wkb = Buffer.from(nativeToEwkb(native, true));
    expect(wkb.toString('hex')).toBe(
      Buffer.concat([byte(1), int(0x20000001), int(4326), dbl(-122.349, 47.651)]).toString('hex'),
    );
  });

  it('a geometry polygon with a hole and Z values keeps both rings and every Z', () => {
    const points = [
      [0, 0, 1],
      [4, 0, 2],
      [4, 4, 3],
      [0, 0, 1],
      [1, 1, 5],
      [2, 1, 6],
      [1, 1, 5],
    ];
    const native = Buffer.concat([
      int(0),
      byte(1),
      byte(0x05),
      int(points.length),
      ...points.map(([x, y]) => dbl(x as number, y as number)),
      ...points.map(([, , z]) => dbl(z as number)),
      int(2),
      byte(2),
      int(0),
      byte(0),
      int(4),
      int(1),
      int(-1),
      int(0),
      byte(3),
    ]);
    const ring = (list: number[][]) => Buffer.concat([int(list.length), ...list.map((p) => dbl(...p))]);
    expect(Buffer.from(nativeToEwkb(native, false)).toString('hex')).toBe(
      Buffer.concat([
        byte(1),
        int(0xa0000003 | 0),
        int(0),
        int(2),
        ring(points.slice(0, 4)),
        ring(points.slice(4)),
      ]).toString('hex'),
    );
  });

  it('a curve polygon (version 2, an arc) is refused with the reason, not written wrong', () => {
    const native = Buffer.concat([
      int(4326),
      byte(2),
      byte(0x24),
      int(5),
      dbl(0, 0, 1, 1, 2, 0, 1, -1, 0, 0),
      int(1),
      byte(3),
      int(0),
      int(1),
      int(-1),
      int(0),
      byte(10),
      int(3),
      byte(2),
      byte(0),
      byte(3),
    ]);
    expect(() => nativeToEwkb(native, true)).toThrow(SpatialValueError);
    expect(() => nativeToEwkb(native, true)).toThrow(/circular arcs/);
  });
});
