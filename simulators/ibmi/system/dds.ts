// DDS for a physical file, read by position as the DDS reference lays out an A-specification:
// 17 name type (R record, K key), 19–28 name, 30–34 length, 35 data type, 36–37 decimal positions,
// 45–80 keywords (DATFMT, DATSEP, TIMFMT, CCSID, ALWNULL, VARLEN, TEXT, COLHDG; UNIQUE at file level).
// Data types A, P, S, B (decimal positions too), F, L, T, Z, H, and the DBCS types G, J, E, O.
import type { FieldType } from '../../../lib/ibmi/recordImage';
import { DDS_DATE_FORMATS, DDS_TIME_FORMATS } from '../../../lib/ibmi/dateTime';
import { ccsidKind, doubleByteHalf } from '../../../lib/ibmi/ccsid';
import type { ColumnSpec } from './files';
import { IbmiError } from '../../../lib/ibmi/connection';

export interface DdsFile {
  format: string;
  columns: ColumnSpec[];
  keys: string[];
  unique: boolean;
  text: string;
}

const keyword = (text: string, name: string): string | undefined =>
  new RegExp(`\\b${name}\\(([^)]*)\\)`).exec(text)?.[1]?.trim();

const bad = (line: number, why: string) => new IbmiError('CPF7302', `DDS line ${line}: ${why}`);

export function parseDds(source: string, jobCcsid: number): DdsFile {
  const out: DdsFile = { format: '', columns: [], keys: [], unique: false, text: '' };
  source.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.padEnd(80, ' ');
    if (line[5] !== 'A' && line[5] !== 'a') return;
    if (line[6] === '*') return;
    const kind = line[16] ?? ' ';
    const name = line.slice(18, 28).trim().toUpperCase();
    const keywords = line.slice(44, 80).trim();
    const n = index + 1;
    if (kind === 'R') {
      out.format = name;
      out.text = /TEXT\('([^']*)'\)/.exec(keywords)?.[1] ?? '';
      return;
    }
    if (kind === 'K') return void out.keys.push(name);
    if (!name) {
      if (/\bUNIQUE\b/.test(keywords)) out.unique = true;
      return;
    }
    const lengthText = line.slice(29, 34).trim();
    const typeCode = (line[34] ?? ' ').toUpperCase();
    const decimalsText = line.slice(35, 37).trim();
    const length = lengthText ? Number(lengthText) : 0;
    const decimals = decimalsText ? Number(decimalsText) : null;
    const ccsid = Number(keyword(keywords, 'CCSID') ?? jobCcsid);
    const dateFormat = keyword(keywords, 'DATFMT');
    const timeFormat = keyword(keywords, 'TIMFMT');
    const separator =
      keyword(keywords, 'DATSEP')?.replaceAll("'", '') ?? keyword(keywords, 'TIMSEP')?.replaceAll("'", '');
    let type: FieldType;
    let sqlType: string;
    let sqlLength = length;
    const code = typeCode === ' ' ? (decimals === null ? 'A' : 'P') : typeCode;
    switch (code) {
      case 'A':
        type = /\bVARLEN\b/.test(keywords)
          ? { kind: 'varchar', length, ccsid }
          : { kind: 'char', length, ccsid };
        sqlType = type.kind === 'varchar' ? 'VARCHAR' : 'CHAR';
        break;
      case 'P':
        type = { kind: 'packed', precision: length, scale: decimals ?? 0 };
        sqlType = 'DECIMAL';
        break;
      case 'S':
        type = { kind: 'zoned', precision: length, scale: decimals ?? 0 };
        sqlType = 'NUMERIC';
        break;
      case 'B': {
        // With decimal positions, a scaled integer: SQL still calls it an integer type (IBM support,
        // "Binary Fields Reported as Integer Types"), its scale in the catalogue beside it.
        const bytes = length <= 4 ? 2 : length <= 9 ? 4 : 8;
        type = decimals ? { kind: 'binary', bytes, scale: decimals } : { kind: 'binary', bytes };
        sqlType = bytes === 2 ? 'SMALLINT' : bytes === 4 ? 'INTEGER' : 'BIGINT';
        break;
      }
      case 'G': {
        // DBCS-graphic: the length counts double-byte characters, in the field's double-byte (or
        // UTF-16) CCSID, else the double-byte half of the job's mixed CCSID, else 65535.
        const graphic = Number(keyword(keywords, 'CCSID') ?? doubleByteHalf(jobCcsid) ?? 65535);
        type = /\bVARLEN\b/.test(keywords)
          ? { kind: 'vargraphic', length, ccsid: graphic }
          : { kind: 'graphic', length, ccsid: graphic };
        sqlType = type.kind === 'vargraphic' ? 'VARG' : 'GRAPHIC';
        break;
      }
      case 'J':
      case 'E':
      case 'O':
        // DBCS-only, either and open: bytes in a mixed CCSID, double-byte runs between shift-out and
        // shift-in; SQL sees a CHAR (or VARCHAR) of that CCSID.
        if (ccsidKind(ccsid) !== 'mixed')
          throw bad(n, `data type ${code} needs a mixed CCSID; ${ccsid} is not one.`);
        type = /\bVARLEN\b/.test(keywords)
          ? { kind: 'varchar', length, ccsid }
          : { kind: 'char', length, ccsid };
        sqlType = type.kind === 'varchar' ? 'VARCHAR' : 'CHAR';
        break;
      case 'F':
        type = { kind: 'float', bytes: length <= 7 ? 4 : 8 };
        sqlType = length <= 7 ? 'REAL' : 'DOUBLE';
        break;
      case 'L': {
        const format = DDS_DATE_FORMATS[dateFormat ?? '*ISO'];
        if (!format) throw bad(n, `DATFMT(${dateFormat}) not valid.`);
        type = { kind: 'date', format, separator, ccsid };
        sqlType = 'DATE';
        sqlLength = 10;
        break;
      }
      case 'T': {
        const format = DDS_TIME_FORMATS[timeFormat ?? '*ISO'];
        if (!format) throw bad(n, `TIMFMT(${timeFormat}) not valid.`);
        type = { kind: 'time', format, separator, ccsid };
        sqlType = 'TIME';
        sqlLength = 8;
        break;
      }
      case 'Z':
        type = { kind: 'timestamp', ccsid };
        sqlType = 'TIMESTMP';
        sqlLength = 26;
        break;
      case 'H':
        type = { kind: 'hex', length };
        sqlType = 'BINARY';
        break;
      default:
        throw bad(n, `data type ${code} not supported.`);
    }
    out.columns.push({
      name,
      type,
      nullable: /\bALWNULL\b/.test(keywords),
      sqlType,
      length: sqlLength,
      scale: decimals,
      defaultValue: null,
      hasDefault: true,
      text: /TEXT\('([^']*)'\)/.exec(keywords)?.[1] ?? '',
      ddsType: code,
    });
  });
  if (!out.format) throw new IbmiError('CPF7302', 'DDS has no record format (R) line.');
  for (const k of out.keys)
    if (!out.columns.some((c) => c.name === k))
      throw new IbmiError('CPF7302', `Key field ${k} is not a field of the format.`);
  return out;
}
