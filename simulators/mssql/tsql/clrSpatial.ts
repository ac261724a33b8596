// geography and geometry as SQL Server stores them (MS-SSCLRT 2.1, version 1): SRID, version,
// properties (Z, M, valid, single point, single line segment), the points (geography: latitude
// then longitude; geometry: x then y), the Z and M arrays, the figures and the shapes. Made from
// Well-Known Text (STGeomFromText, Parse, Point, a string written into the column) and shown as
// SQL Server's WKT (ToString, STAsText). Not kept: curves (version 2), FullGlobe, the hemisphere
// and ring-orientation rules of geography beyond the latitude range (simulators/mssql/CONFORMANCE.md).
import { statementError } from './basics';

export type SpatialKind = 'geography' | 'geometry';
type Coord = [x: number, y: number, z: number | null, m: number | null];
type ShapeType =
  | 'POINT'
  | 'LINESTRING'
  | 'POLYGON'
  | 'MULTIPOINT'
  | 'MULTILINESTRING'
  | 'MULTIPOLYGON'
  | 'GEOMETRYCOLLECTION';
interface Shape {
  type: ShapeType;
  /** POINT: zero or one figure of one coordinate; LINESTRING one figure; POLYGON its rings. */
  figures: Coord[][];
  children: Shape[];
}

const TYPE_IDS: Record<ShapeType, number> = {
  POINT: 1,
  LINESTRING: 2,
  POLYGON: 3,
  MULTIPOINT: 4,
  MULTILINESTRING: 5,
  MULTIPOLYGON: 6,
  GEOMETRYCOLLECTION: 7,
};
const MEMBER: Partial<Record<ShapeType, ShapeType>> = {
  MULTIPOINT: 'POINT',
  MULTILINESTRING: 'LINESTRING',
  MULTIPOLYGON: 'POLYGON',
};
const HAS_Z = 1;
const HAS_M = 2;
const IS_VALID = 4;
const SINGLE_POINT = 8;
const SINGLE_SEGMENT = 16;

const clrError = (kind: SpatialKind, detail: string) =>
  statementError(
    6522,
    `A .NET Framework error occurred during execution of user-defined routine or aggregate "${kind}": \nSystem.FormatException: ${detail}`,
  );

// ---------- Well-Known Text ----------

function parseWkt(kind: SpatialKind, text: string): Shape {
  const tokens = text.match(/[A-Za-z]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[(),]|\S/g) ?? [];
  let at = 0;
  const fail = (): never => {
    throw clrError(
      kind,
      `24114: The label ${text.slice(0, 40)} in the input well-known text (WKT) is not valid.`,
    );
  };
  const take = (want?: string) => {
    const t = tokens[at++];
    if (t === undefined || (want !== undefined && t.toUpperCase() !== want)) fail();
    return t as string;
  };
  const peek = () => tokens[at]?.toUpperCase();
  const coord = (): Coord => {
    const n: (number | null)[] = [];
    while (peek() !== ',' && peek() !== ')' && peek() !== undefined) {
      const t = take();
      if (t.toUpperCase() === 'NULL') n.push(null);
      else if (Number.isFinite(Number(t))) n.push(Number(t));
      else fail();
    }
    if (n.length < 2 || n.length > 4 || n[0] === null || n[1] === null) fail();
    return [n[0] as number, n[1] as number, n[2] ?? null, n[3] ?? null];
  };
  const list = <T>(item: () => T): T[] => {
    take('(');
    const out = [item()];
    while (peek() === ',') {
      take(',');
      out.push(item());
    }
    take(')');
    return out;
  };
  const empty = () => peek() === 'EMPTY' && Boolean(take());
  const shape = (type: ShapeType): Shape => {
    const s: Shape = { type, figures: [], children: [] };
    if (empty()) return s;
    if (type === 'POINT') s.figures = [list(coord)];
    else if (type === 'LINESTRING') s.figures = [list(coord)];
    else if (type === 'POLYGON') s.figures = list(() => list(coord));
    else if (type === 'GEOMETRYCOLLECTION') s.children = list(() => tagged());
    else {
      const member = MEMBER[type] as ShapeType;
      // MULTIPOINT ((1 2), (3 4)) and the older MULTIPOINT (1 2, 3 4) both name points.
      s.children = list(() =>
        member === 'POINT' && peek() !== '(' && peek() !== 'EMPTY'
          ? { type: member, figures: [[coord()]], children: [] }
          : shape(member),
      );
    }
    return s;
  };
  const tagged = (): Shape => {
    const type = take().toUpperCase();
    if (!(type in TYPE_IDS)) fail();
    return shape(type as ShapeType);
  };
  const root = tagged();
  if (at !== tokens.length) fail();
  return root;
}

const num = (n: number) => (Object.is(n, -0) ? '0' : String(n));

function wktOf(s: Shape): string {
  const point = ([x, y, z, m]: Coord) =>
    [
      num(x),
      num(y),
      ...(z !== null || m !== null ? [z === null ? 'NULL' : num(z)] : []),
      ...(m !== null ? [num(m)] : []),
    ].join(' ');
  const line = (c: Coord[]) => `(${c.map(point).join(', ')})`;
  const body = (x: Shape): string => {
    if (x.figures.length === 0 && x.children.length === 0) return 'EMPTY';
    switch (x.type) {
      case 'POINT':
      case 'LINESTRING':
        return line(x.figures[0] ?? []);
      case 'POLYGON':
        return `(${x.figures.map(line).join(', ')})`;
      case 'GEOMETRYCOLLECTION':
        return `(${x.children.map(wktOf).join(', ')})`;
      default:
        return `(${x.children.map(body).join(', ')})`;
    }
  };
  return `${s.type} ${body(s)}`;
}

// ---------- the stored form ----------

/** The stored bytes of a shape (SRID, version 1, properties, points, Z, M, figures, shapes). */
function serialize(kind: SpatialKind, srid: number, root: Shape): Buffer {
  const points: Coord[] = [];
  const figures: [attribute: number, pointOffset: number][] = [];
  const shapes: [parent: number, figureOffset: number, type: number][] = [];
  // Depth first, each shape's figures before its children's, as SQL Server writes them.
  const walk = (s: Shape, parent: number) => {
    const index = shapes.length;
    const first = figures.length;
    shapes.push([parent, -1, TYPE_IDS[s.type]]);
    s.figures.forEach((figure, i) => {
      figures.push([s.type === 'POLYGON' ? (i === 0 ? 2 : 0) : 1, points.length]);
      points.push(...figure);
    });
    for (const c of s.children) walk(c, index);
    (shapes[index] as [number, number, number])[1] = figures.length > first ? first : -1;
  };
  walk(root, -1);
  if (kind === 'geography')
    for (const [, lat] of points)
      if (lat < -90 || lat > 90)
        throw clrError(kind, '24201: Latitude values must be between -90 and 90 degrees.');
  const hasZ = points.some((p) => p[2] !== null);
  const hasM = points.some((p) => p[3] !== null);
  const single =
    shapes.length === 1 && root.type === 'POINT' && points.length === 1
      ? SINGLE_POINT
      : shapes.length === 1 && root.type === 'LINESTRING' && points.length === 2
        ? SINGLE_SEGMENT
        : 0;
  const parts: Buffer[] = [];
  const head = Buffer.alloc(6);
  head.writeInt32LE(srid);
  head[4] = 1;
  head[5] = (hasZ ? HAS_Z : 0) | (hasM ? HAS_M : 0) | IS_VALID | single;
  parts.push(head);
  const int = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    parts.push(b);
  };
  const dbl = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(n);
    parts.push(b);
  };
  if (!single) int(points.length);
  for (const [x, y] of points) {
    dbl(kind === 'geography' ? y : x);
    dbl(kind === 'geography' ? x : y);
  }
  // A missing Z or M beside others is NaN, as SQL Server keeps a NULL coordinate.
  if (hasZ) for (const p of points) dbl(p[2] ?? NaN);
  if (hasM) for (const p of points) dbl(p[3] ?? NaN);
  if (!single) {
    int(figures.length);
    for (const [attribute, offset] of figures) {
      parts.push(Buffer.from([attribute]));
      int(offset);
    }
    int(shapes.length);
    for (const [parent, figure, type] of shapes) {
      int(parent);
      int(figure);
      parts.push(Buffer.from([type]));
    }
  }
  return Buffer.concat(parts);
}

/** The shape tree of stored bytes; a value the sandbox did not write in version 1 is refused. */
function deserialize(kind: SpatialKind, b: Buffer): { srid: number; root: Shape } {
  const bad = () => clrError(kind, '24210: The binary data is not a valid serialized value of this type.');
  if (b.length < 6 || b[4] !== 1) throw bad();
  const props = b[5] as number;
  let at = 6;
  const int = () => {
    if (at + 4 > b.length) throw bad();
    const v = b.readInt32LE(at);
    at += 4;
    return v;
  };
  const dbl = () => {
    if (at + 8 > b.length) throw bad();
    const v = b.readDoubleLE(at);
    at += 8;
    return v;
  };
  const n = props & SINGLE_POINT ? 1 : props & SINGLE_SEGMENT ? 2 : int();
  const coords: Coord[] = [];
  for (let i = 0; i < n; i++) {
    const a = dbl();
    const c = dbl();
    coords.push(kind === 'geography' ? [c, a, null, null] : [a, c, null, null]);
  }
  const nullable = (v: number) => (Number.isNaN(v) ? null : v);
  if (props & HAS_Z) for (const c of coords) c[2] = nullable(dbl());
  if (props & HAS_M) for (const c of coords) c[3] = nullable(dbl());
  let figures: number[] = [0];
  let shapes: [number, number, number][] = [[-1, 0, props & SINGLE_POINT ? 1 : 2]];
  if (!(props & (SINGLE_POINT | SINGLE_SEGMENT))) {
    figures = Array.from({ length: int() }, () => {
      at += 1;
      return int();
    });
    shapes = Array.from({ length: int() }, () => {
      const parent = int();
      const figure = int();
      if (at >= b.length) throw bad();
      return [parent, figure, b[at++] as number];
    });
  }
  if (at !== b.length || shapes.length === 0) throw bad();
  const names = Object.keys(TYPE_IDS) as ShapeType[];
  const built: Shape[] = shapes.map(([, , type]) => {
    const name = names[type - 1];
    if (!name) throw bad();
    return { type: name, figures: [], children: [] };
  });
  shapes.forEach(([parent, figure, type], i) => {
    const shape = built[i] as Shape;
    if (parent >= 0) (built[parent] as Shape).children.push(shape);
    if (figure < 0 || type >= 4) return;
    // A simple shape's figures run to the next simple shape's first figure.
    const next = shapes.slice(i + 1).find(([, f, t]) => f >= 0 && t < 4)?.[1] ?? figures.length;
    for (let f = figure; f < next; f++) {
      const end = figures[f + 1] ?? coords.length;
      shape.figures.push(coords.slice(figures[f], end));
    }
  });
  return { srid: b.readInt32LE(0), root: built[0] as Shape };
}

// ---------- what T-SQL calls ----------

/** STGeomFromText, Parse and a string written into the column (SRID 4326 for geography, else 0). */
export function spatialFromText(kind: SpatialKind, text: string, srid?: number): Buffer {
  return serialize(kind, srid ?? (kind === 'geography' ? 4326 : 0), parseWkt(kind, text.trim()));
}

/** geography::Point(lat, long, srid) and geometry::Point(x, y, srid). */
export function spatialPoint(kind: SpatialKind, a: number, b: number, srid: number): Buffer {
  const coord: Coord = kind === 'geography' ? [b, a, null, null] : [a, b, null, null];
  return serialize(kind, srid, { type: 'POINT', figures: [[coord]], children: [] });
}

/** ToString() and STAsText(): SQL Server's WKT of the stored value. */
export function spatialText(kind: SpatialKind, bytes: Buffer): string {
  return wktOf(deserialize(kind, bytes).root);
}

export const spatialSrid = (kind: SpatialKind, bytes: Buffer): number => deserialize(kind, bytes).srid;

/** A varbinary converted to the type: kept when it is a valid stored value, 6522 otherwise. */
export function spatialFromBytes(kind: SpatialKind, bytes: Buffer): Buffer {
  deserialize(kind, bytes);
  return bytes;
}
