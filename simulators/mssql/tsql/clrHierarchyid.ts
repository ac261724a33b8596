// hierarchyid as SQL Server stores it: each label of the path in a variable-length bit pattern chosen
// by the label's range, a T bit after it (1 ends the level, 0 a dotted part), zero-padded to whole
// bytes; the root is no bytes. The patterns keep byte order equal to depth-first order, so ORDER BY
// over the stored bytes is the hierarchy's order ("hierarchyid data type method reference"; the
// example /1/1/3/ = 0x5ADE is Microsoft's). Wrong text is SQL Server's error 6522 around 24001.
import { statementError } from './basics';

interface Pattern {
  min: bigint;
  max: bigint;
  /** The bits as SQL Server lays them out: 0/1 fixed, x a value bit, T the level's end. */
  layout: string;
}

const range = (min: bigint, max: bigint, layout: string): Pattern => ({ min, max, layout });

// Ordered by prefix within each sign so a reader can tell the pattern from its first bits.
const PATTERNS: readonly Pattern[] = [
  range(-281479271682120n, -4294971465n, '000100xxxxxxxxxxxxxx0xxxxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxxT'),
  range(-4294971464n, -4169n, '000101xxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxxT'),
  range(-4168n, -73n, '000110xxxxx0xxx0x1xxxT'),
  range(-72n, -9n, '0010xx0x1xxxT'),
  range(-8n, -1n, '00111xxxT'),
  range(0n, 3n, '01xxT'),
  range(4n, 7n, '100xxT'),
  range(8n, 15n, '101xxxT'),
  range(16n, 79n, '110xx0x1xxxT'),
  range(80n, 1103n, '1110xxx0xxx0x1xxxT'),
  range(1104n, 5199n, '11110xxxxx0xxx0x1xxxT'),
  range(5200n, 4294972495n, '111110xxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxxT'),
  range(4294972496n, 281479271683151n, '111111xxxxxxxxxxxxxx0xxxxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxxT'),
];
const prefixOf = (p: Pattern) => p.layout.slice(0, p.layout.indexOf('x'));

const invalid = (text: string) =>
  statementError(
    6522,
    `A .NET Framework error occurred during execution of user-defined routine or aggregate "hierarchyid": \nMicrosoft.SqlServer.Types.HierarchyIdException: 24001: SqlHierarchyId.Parse failed because the input string '${text}' is not a valid string representation of a SqlHierarchyId node.`,
  );

/** The labels of each level: '/1/2.5/' → [[1], [2, 5]]. */
function levels(text: string): bigint[][] {
  if (text === '/') return [];
  if (!/^\/(?:-?\d+(?:\.-?\d+)*\/)+$/.test(text)) throw invalid(text);
  return text
    .slice(1, -1)
    .split('/')
    .map((level) => level.split('.').map(BigInt));
}

/** One label's bits: the value's bits in the x places; a dotted part is label + 1 with T = 0. */
function labelBits(label: bigint, last: boolean, text: string): string {
  const encoded = last ? label : label + 1n;
  const p = PATTERNS.find((q) => encoded >= q.min && encoded <= q.max);
  if (!p) throw invalid(text);
  const width = [...p.layout].filter((c) => c === 'x').length;
  const value = (encoded - p.min).toString(2).padStart(width, '0');
  let k = 0;
  const bits = [...p.layout].map((c) => (c === 'x' ? value[k++] : c === 'T' ? '1' : c)).join('');
  // A dotted part is the next label's pattern less one: its T bit becomes 0.
  return last ? bits : (BigInt(`0b${bits}`) - 1n).toString(2).padStart(bits.length, '0');
}

/** hierarchyid::Parse: the canonical text to the stored bytes. */
export function hierarchyIdBytes(text: string): Buffer {
  const bits = levels(text)
    .flatMap((level) => level.map((label, i) => labelBits(label, i === level.length - 1, text)))
    .join('');
  const padded = bits.padEnd(Math.ceil(bits.length / 8) * 8, '0');
  const out = Buffer.alloc(padded.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(padded.slice(i * 8, i * 8 + 8), 2);
  return out;
}

/** ToString(): the stored bytes back to the canonical text. */
export function hierarchyIdText(bytes: Buffer): string {
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  const out: string[] = [];
  let level: string[] = [];
  let at = 0;
  // Trailing zero bits are padding: no pattern is all zeros.
  while (at < bits.length && bits.slice(at).includes('1')) {
    const p = PATTERNS.find((q) => bits.startsWith(prefixOf(q), at) && at + q.layout.length <= bits.length);
    if (!p) throw statementError(6522, 'The stored hierarchyid value is not valid.');
    const field = bits.slice(at, at + p.layout.length);
    const value = BigInt(`0b${[...p.layout].map((c, i) => (c === 'x' ? field[i] : '')).join('') || '0'}`);
    const last = field.endsWith('1');
    level.push(String(p.min + value - (last ? 0n : 1n)));
    if (last) {
      out.push(level.join('.'));
      level = [];
    }
    at += p.layout.length;
  }
  return out.length ? `/${out.join('/')}/` : '/';
}
