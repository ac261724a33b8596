// SQL Server's geography and geometry values, read by the agent as their serialized bytes (MS-SSCLRT
// 2.1: exact, every coordinate, Z, M and the SRID), turned into PostGIS's Extended Well-Known Binary
// for targets that are not SQL Server: little-endian, the SRID in the outer header, Z and M flags,
// x before y (a geography's longitude before its latitude, as WKB orders them). PostGIS reads it with
// ST_GeomFromEWKB (or a bytea cast); SpatiaLite with GeomFromEWKB. Circular arcs and FullGlobe
// (SQL Server 2012's version 2) have no simple-feature form: such a value is refused with its reason.

const Z_FLAG = 0x80000000;
const M_FLAG = 0x40000000;
const SRID_FLAG = 0x20000000;

interface Native {
  srid: number;
  hasZ: boolean;
  hasM: boolean;
  /** [x, y, z, m] in WKB's order. */
  points: [number, number, number, number][];
  figures: number[];
  shapes: { parent: number; figure: number; type: number }[];
}

export class SpatialValueError extends Error {}

function readNative(bytes: Uint8Array, geography: boolean): Native {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length)
      throw new SpatialValueError(
        `a ${geography ? 'geography' : 'geometry'} value ends early (${bytes.length} bytes)`,
      );
  };
  const u8 = () => (need(1), bytes[at++] as number);
  const i32 = () => (need(4), (at += 4), view.getInt32(at - 4, true));
  const f64 = () => (need(8), (at += 8), view.getFloat64(at - 8, true));
  const srid = i32();
  const version = u8();
  if (version !== 1 && version !== 2)
    throw new SpatialValueError(`serialization version ${version} is unknown`);
  const props = u8();
  const single = props & 0x08 ? 1 : props & 0x10 ? 2 : 0;
  const count = single || i32();
  const points: Native['points'] = [];
  for (let i = 0; i < count; i++) {
    const a = f64();
    const b = f64();
    points.push(geography ? [b, a, NaN, NaN] : [a, b, NaN, NaN]);
  }
  if (props & 0x01) for (const p of points) p[2] = f64();
  if (props & 0x02) for (const p of points) p[3] = f64();
  const native: Native = {
    srid,
    hasZ: (props & 0x01) !== 0,
    hasM: (props & 0x02) !== 0,
    points,
    figures: [0],
    shapes: [],
  };
  if (single) {
    native.shapes = [{ parent: -1, figure: 0, type: single === 1 ? 1 : 2 }];
    return native;
  }
  const figureCount = i32();
  native.figures = [];
  for (let i = 0; i < figureCount; i++) {
    const attribute = u8();
    // Version 2 marks arcs (2) and composite curves (3); version 1's 0-2 are ring roles.
    if (version === 2 && attribute >= 2)
      throw new SpatialValueError('it holds circular arcs, which WKB does not');
    native.figures.push(i32());
  }
  const shapeCount = i32();
  for (let i = 0; i < shapeCount; i++) {
    const parent = i32();
    const figure = i32();
    const type = u8();
    if (type >= 8)
      throw new SpatialValueError(type === 11 ? 'it is a FullGlobe' : 'it holds curves, which WKB does not');
    native.shapes.push({ parent, figure, type });
  }
  return native;
}

class Writer {
  private readonly parts: number[] = [];
  private readonly scratch = new DataView(new ArrayBuffer(8));
  u8(n: number) {
    this.parts.push(n);
  }
  u32(n: number) {
    this.scratch.setUint32(0, n >>> 0, true);
    for (let i = 0; i < 4; i++) this.parts.push(this.scratch.getUint8(i));
  }
  f64(n: number) {
    this.scratch.setFloat64(0, n, true);
    for (let i = 0; i < 8; i++) this.parts.push(this.scratch.getUint8(i));
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** The EWKB of a geography's or geometry's serialized bytes. */
export function nativeToEwkb(bytes: Uint8Array, geography: boolean): Uint8Array {
  const n = readNative(bytes, geography);
  const out = new Writer();
  const dims = (n.hasZ ? Z_FLAG : 0) | (n.hasM ? M_FLAG : 0);
  const pointsOf = (figure: number) =>
    n.points.slice(n.figures[figure], n.figures[figure + 1] ?? n.points.length);
  // A simple shape's figures run up to the next shape that has figures.
  const figuresOf = (i: number): number[] => {
    const first = n.shapes[i]?.figure ?? -1;
    if (first < 0) return [];
    const next = n.shapes.slice(i + 1).find((s) => s.figure >= 0)?.figure ?? n.figures.length;
    return Array.from({ length: next - first }, (_, k) => first + k);
  };
  const coordinate = ([x, y, z, m]: [number, number, number, number]) => {
    out.f64(x);
    out.f64(y);
    if (n.hasZ) out.f64(z);
    if (n.hasM) out.f64(m);
  };
  const shape = (i: number, outer: boolean) => {
    const s = n.shapes[i];
    if (!s) throw new SpatialValueError('a shape is missing');
    out.u8(1);
    out.u32(s.type | dims | (outer ? SRID_FLAG : 0));
    if (outer) out.u32(n.srid);
    const figures = figuresOf(i);
    if (s.type === 1) {
      // An empty point is NaN coordinates in PostGIS's WKB.
      const [p] = figures.length ? pointsOf(figures[0] as number) : [];
      coordinate(p ?? [NaN, NaN, NaN, NaN]);
    } else if (s.type === 2) {
      const points = figures.length ? pointsOf(figures[0] as number) : [];
      out.u32(points.length);
      points.forEach(coordinate);
    } else if (s.type === 3) {
      out.u32(figures.length);
      for (const f of figures) {
        const ring = pointsOf(f);
        out.u32(ring.length);
        ring.forEach(coordinate);
      }
    } else {
      const children = n.shapes.flatMap((c, k) => (c.parent === i ? [k] : []));
      out.u32(children.length);
      for (const c of children) shape(c, false);
    }
  };
  if (n.shapes.length === 0) throw new SpatialValueError('it has no shape');
  shape(0, true);
  return out.bytes();
}
