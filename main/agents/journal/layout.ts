// A file's record layout, which a journal entry's specific data follows byte for byte: from the SQL
// catalogue (QSYS2.SYSCOLUMNS), or from DSPFFD when DDS discovery is on — the only way to learn a
// DDS date field's own format (*MDY, *JUL …) and separator, which SQL reports as a plain DATE.
import { JOURNAL_WORK_FILES } from '../../../shared/agents/journal';
import { DDS_DATE_FORMATS, DDS_TIME_FORMATS } from '../../../lib/ibmi/dateTime';
import {
  IbmiError,
  ibmiName,
  type IbmiConnection,
  type IbmiRow,
  cellText as text,
} from '../../../lib/ibmi/connection';
import { BINARY_CCSID, ccsidKind } from '../../../lib/ibmi/ccsid';
import { fieldLength, sqlTypeName, type FieldDef, type FieldType } from '../../../lib/ibmi/recordImage';
import type { Entity } from '../../../shared/controlApi';
import { tableKey, type ColumnShape, type TableRef } from '../source';
import { ibmiFold } from '../../../shared/names';

export interface FileLayout {
  /** As the entity writes it; `library` and `file` are its system names. */
  ref: TableRef;
  library: string;
  file: string;
  fields: FieldDef[];
  columns: ColumnShape[];
  /** Primary key columns from the catalogue, in key order; empty when the file has none. */
  primaryKey: string[];
  /** The file's members, *FIRST first: with several, each replicates (its rows keyed by member first). */
  members: string[];
}

const systemNames = (ref: TableRef) => ({
  library: ibmiName(ref.schema, 'Library'),
  file: ibmiName(ref.table, 'File'),
});

const num = (v: IbmiRow[string] | undefined) => Number(v ?? 0);
const inList = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** A text field in its CCSID, or the reason the agent cannot decode that CCSID. */
function textField(type: FieldType, sqlType: string): FieldType {
  if (!('ccsid' in type) || ccsidKind(type.ccsid) !== null) return type;
  const length = fieldLength(type);
  return type.ccsid === BINARY_CCSID
    ? { kind: 'unsupported', sqlType, length, reason: 'CCSID 65535 on a graphic field has no character set' }
    : {
        kind: 'unsupported',
        sqlType,
        length,
        reason: `CCSID ${type.ccsid} is not one the agent has a table for`,
      };
}

/** A SYSCOLUMNS row as a field; SQL describes dates and times in *ISO, as SQL tables store them. */
function catalogField(r: IbmiRow): FieldType {
  const type = text(r.DATA_TYPE);
  const length = num(r.LENGTH);
  const ccsid = r.CCSID === null ? 37 : num(r.CCSID);
  const precision = r.NUMERIC_PRECISION === null ? length : num(r.NUMERIC_PRECISION);
  const scale = num(r.NUMERIC_SCALE);
  switch (type) {
    case 'CHAR':
      if (ccsid === BINARY_CCSID) return { kind: 'hex', length, forBitData: true };
      return textField({ kind: 'char', length, ccsid }, `CHAR(${length})`);
    case 'VARCHAR':
      if (ccsid === BINARY_CCSID) return { kind: 'varhex', length, forBitData: true };
      return textField({ kind: 'varchar', length, ccsid }, `VARCHAR(${length})`);
    case 'GRAPHIC':
      return textField({ kind: 'graphic', length, ccsid }, `GRAPHIC(${length})`);
    case 'VARG':
      return textField({ kind: 'vargraphic', length, ccsid }, `VARGRAPHIC(${length})`);
    case 'DECIMAL':
      return { kind: 'packed', precision, scale };
    case 'NUMERIC':
      return { kind: 'zoned', precision, scale };
    // A DDS binary field with decimal positions is an integer type to SQL, its scale beside it.
    case 'SMALLINT':
      return scale ? { kind: 'binary', bytes: 2, scale } : { kind: 'binary', bytes: 2 };
    case 'INTEGER':
      return scale ? { kind: 'binary', bytes: 4, scale } : { kind: 'binary', bytes: 4 };
    case 'BIGINT':
      return scale ? { kind: 'binary', bytes: 8, scale } : { kind: 'binary', bytes: 8 };
    case 'REAL':
      return { kind: 'float', bytes: 4 };
    case 'DOUBLE':
    case 'FLOAT':
      return { kind: 'float', bytes: length === 4 ? 4 : 8 };
    case 'DATE':
      return { kind: 'date', format: 'iso', ccsid };
    case 'TIME':
      return { kind: 'time', format: 'iso', ccsid };
    case 'TIMESTMP':
    case 'TIMESTAMP':
      // NUMERIC_SCALE holds a timestamp's fraction digits (0 to 12).
      return { kind: 'timestamp', ccsid, precision: r.NUMERIC_SCALE === null ? 6 : scale };
    case 'BINARY':
      return { kind: 'hex', length };
    case 'VARBIN':
      return { kind: 'varhex', length };
    case 'BOOLEAN':
      return { kind: 'boolean' };
    case 'ROWID':
      return { kind: 'rowid' };
    case 'DATALINK':
      return {
        kind: 'unsupported',
        sqlType: `DATALINK(${length})`,
        length,
        reason: 'IBM documents no record-image form for a DATALINK, so its journal entries cannot be read',
      };
    case 'DECFLOAT':
      // LENGTH is the bytes (8 or 16), NUMERIC_PRECISION the digits (16 or 34).
      return { kind: 'decfloat', digits: precision === 16 || length === 8 ? 16 : 34 };
    // The journal entry holds a placeholder: the value is read from the file (lobValues.ts).
    case 'BLOB':
      return { kind: 'lob', lob: 'BLOB', length, ccsid: BINARY_CCSID };
    case 'CLOB':
    case 'DBCLOB':
    case 'XML':
      return textField({ kind: 'lob', lob: type, length, ccsid: r.CCSID === null ? 1208 : ccsid }, type);
  }
  return {
    kind: 'unsupported',
    sqlType: type,
    length,
    reason: 'the journal agent does not decode this type',
  };
}

/** A DSPFFD (QWHDRFFD) row as a field: the data type letter, buffer length, digits, format and separator. */
function dspffdField(r: IbmiRow): FieldType {
  const kind = text(r.WHFLDT);
  const bytes = num(r.WHFLDB);
  const digits = num(r.WHFLDD);
  const places = num(r.WHFLDP);
  const ccsid = num(r.WHCCSID) || 37;
  const separator = text(r.WHSEP) || undefined;
  const format = text(r.WHFMT);
  const varying = text(r.WHVARL) === 'Y';
  switch (kind) {
    // A; and J (DBCS-only), E (either), O (open): mixed data with shift-out/shift-in in the field's CCSID.
    case 'A':
    case 'J':
    case 'E':
    case 'O':
      if (ccsid === BINARY_CCSID)
        return varying
          ? { kind: 'varhex', length: bytes - 2, forBitData: true }
          : { kind: 'hex', length: bytes, forBitData: true };
      return varying
        ? textField({ kind: 'varchar', length: bytes - 2, ccsid }, `VARCHAR(${bytes - 2})`)
        : textField({ kind: 'char', length: bytes, ccsid }, `CHAR(${bytes})`);
    case 'G':
      return varying
        ? textField({ kind: 'vargraphic', length: (bytes - 2) / 2, ccsid }, `VARGRAPHIC(${(bytes - 2) / 2})`)
        : textField({ kind: 'graphic', length: bytes / 2, ccsid }, `GRAPHIC(${bytes / 2})`);
    case 'P':
      return { kind: 'packed', precision: digits, scale: places };
    case 'S':
      return { kind: 'zoned', precision: digits, scale: places };
    case 'B':
      if (bytes === 2 || bytes === 4 || bytes === 8)
        return places ? { kind: 'binary', bytes, scale: places } : { kind: 'binary', bytes };
      break;
    case 'F':
      return { kind: 'float', bytes: bytes === 4 ? 4 : 8 };
    case 'L':
      return { kind: 'date', format: DDS_DATE_FORMATS[format] ?? 'iso', separator, ccsid };
    case 'T':
      return { kind: 'time', format: DDS_TIME_FORMATS[format] ?? 'iso', separator, ccsid };
    case 'Z':
      return { kind: 'timestamp', ccsid, precision: bytes > 19 ? bytes - 20 : 0 };
    case 'H':
      return varying ? { kind: 'varhex', length: bytes - 2 } : { kind: 'hex', length: bytes };
  }
  return {
    kind: 'unsupported',
    sqlType: `DDS type ${kind}`,
    length: bytes,
    reason: 'the journal agent does not decode this DDS data type',
  };
}

/**
 * The members replicated: those an entity names (`chosen`), in the file's order, else all of a file of
 * several (the first alone for a file of one); `unknown`, the names the file does not have.
 */
export function membersRead(
  layout: FileLayout,
  chosen?: readonly string[],
): { read: string[]; unknown: string[] } {
  if (!chosen)
    return { read: layout.members.length > 1 ? layout.members : layout.members.slice(0, 1), unknown: [] };
  return {
    read: layout.members.filter((m) => chosen.includes(m)),
    unknown: chosen.filter((m) => !layout.members.includes(m)),
  };
}

/** Each column of the file the agent cannot replicate, with its type and the reason. */
export const unsupportedColumns = (layout: FileLayout): string[] =>
  layout.fields.flatMap((f) =>
    f.type.kind === 'unsupported' ? [`${f.name} (${f.type.sqlType}): ${f.type.reason}`] : [],
  );

/** The columns of a logical key the file does not have (names compare upper-cased), as given. */
export const unknownColumns = (layout: FileLayout, columns: readonly string[]): string[] =>
  columns.filter((col) => !layout.fields.some((f) => f.name === ibmiFold(col)));

/** An entity's setting for one field, from settings per column named as the entity wrote them. */
export const columnSetting = <T>(perColumn: Readonly<Record<string, T>>, f: FieldDef): T | undefined =>
  Object.entries(perColumn).find(([c]) => ibmiFold(c) === f.name)?.[1];

/** Layouts an entity's settings made from a file's, by layout: the key says which settings. */
export type DerivedLayouts = WeakMap<FileLayout, { key: string; derived: FileLayout }>;

/**
 * The layout `make` derives from `layout` under the settings `key`, made once per layout and key:
 * decoders are compiled per field list (assemble.ts), so the same settings must give the same object.
 */
export function derivedLayout(
  made: DerivedLayouts,
  layout: FileLayout,
  key: string,
  make: () => FileLayout,
): FileLayout {
  const known = made.get(layout);
  if (known?.key === key) return known.derived;
  const derived = make();
  made.set(layout, { key, derived });
  return derived;
}

/** Primary keys of the files, from SYSCST and SYSKEYCST: one query for all of them. */
export async function primaryKeys(
  c: IbmiConnection,
  refs: readonly TableRef[],
): Promise<Map<string, string[]>> {
  const names = refs.map(systemNames);
  const rows = await c.query(
    `SELECT K.TABLE_SCHEMA, K.TABLE_NAME, K.COLUMN_NAME, K.ORDINAL_POSITION FROM QSYS2.SYSKEYCST K, QSYS2.SYSCST C ` +
      `WHERE C.CONSTRAINT_SCHEMA = K.CONSTRAINT_SCHEMA AND C.CONSTRAINT_NAME = K.CONSTRAINT_NAME ` +
      `AND C.CONSTRAINT_TYPE = 'PRIMARY KEY' AND K.TABLE_SCHEMA IN (${inList(names.length)}) ` +
      `ORDER BY K.TABLE_SCHEMA, K.TABLE_NAME, K.ORDINAL_POSITION`,
    names.map((n) => n.library),
  );
  const keys = new Map<string, string[]>();
  for (const r of rows) {
    const k = `${text(r.TABLE_SCHEMA)}/${text(r.TABLE_NAME)}`;
    keys.set(k, [...(keys.get(k) ?? []), text(r.COLUMN_NAME)]);
  }
  return keys;
}

/** The members of the files (SYSPARTITIONSTAT), oldest first: one query for all of them. */
async function membersOf(c: IbmiConnection, refs: readonly TableRef[]): Promise<Map<string, string[]>> {
  const names = refs.map(systemNames);
  const rows = await c.query(
    'SELECT SYSTEM_TABLE_SCHEMA, SYSTEM_TABLE_NAME, SYSTEM_TABLE_MEMBER FROM QSYS2.SYSPARTITIONSTAT ' +
      `WHERE SYSTEM_TABLE_SCHEMA IN (${inList(names.length)}) AND SYSTEM_TABLE_NAME IN (${inList(names.length)}) ` +
      'ORDER BY SYSTEM_TABLE_SCHEMA, SYSTEM_TABLE_NAME, CREATE_TIMESTAMP',
    [...names.map((n) => n.library), ...names.map((n) => n.file)],
  );
  const members = new Map<string, string[]>();
  for (const r of rows) {
    const k = `${text(r.SYSTEM_TABLE_SCHEMA)}/${text(r.SYSTEM_TABLE_NAME)}`;
    members.set(k, [...(members.get(k) ?? []), text(r.SYSTEM_TABLE_MEMBER)]);
  }
  return members;
}

function layoutOf(
  ref: TableRef,
  fields: FieldDef[],
  keys: Map<string, string[]>,
  members: Map<string, string[]>,
): FileLayout {
  const { library, file } = systemNames(ref);
  return {
    members: members.get(`${library}/${file}`) ?? [file],
    ref,
    library,
    file,
    fields,
    columns: fields.map((f) => ({
      name: f.name,
      sourceType: sqlTypeName(f.type),
      nullable: f.nullable === true,
    })),
    primaryKey: keys.get(`${library}/${file}`) ?? [],
  };
}

/** Layouts from the SQL catalogue: two queries whatever the number of files. A missing file is left out. */
export async function catalogLayouts(c: IbmiConnection, refs: readonly TableRef[]): Promise<FileLayout[]> {
  if (refs.length === 0) return [];
  const names = refs.map(systemNames);
  // Keys and members before columns: a file dropped between the queries then has no columns (it is
  // left out), never columns without its key.
  const keys = await primaryKeys(c, refs);
  const members = await membersOf(c, refs);
  const rows = await c.query(
    `SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, LENGTH, NUMERIC_SCALE, NUMERIC_PRECISION, CCSID, IS_NULLABLE, COLUMN_DEFAULT ` +
      `FROM QSYS2.SYSCOLUMNS WHERE TABLE_SCHEMA IN (${inList(names.length)}) AND TABLE_NAME IN (${inList(names.length)}) ` +
      `ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
    [...names.map((n) => n.library), ...names.map((n) => n.file)],
  );
  return refs.flatMap((ref, i) => {
    const n = names[i] ?? systemNames(ref);
    const mine = rows.filter((r) => text(r.TABLE_SCHEMA) === n.library && text(r.TABLE_NAME) === n.file);
    if (mine.length === 0) return [];
    const fields = mine.map((r) => ({
      name: text(r.COLUMN_NAME),
      type: catalogField(r),
      nullable: text(r.IS_NULLABLE) === 'Y',
    }));
    // COLUMN_DEFAULT: the default's SQL text, 'NULL' for the null default, null for none.
    const defaulted = new Set(
      mine
        .filter((r) => r.COLUMN_DEFAULT !== null && text(r.COLUMN_DEFAULT).toUpperCase() !== 'NULL')
        .map((r) => text(r.COLUMN_NAME)),
    );
    const layout = layoutOf(ref, fields, keys, members);
    for (const c of layout.columns) c.defaulted = defaulted.has(c.name);
    return [layout];
  });
}

const FILE_LAYOUT = JOURNAL_WORK_FILES.fileLayout;

/**
 * A library holding at least this many of the files is described whole (`DSPFFD lib/*ALL`): one
 * command and one query, where a file at a time costs two round trips each (a minute at 1,000 files
 * 30 ms away). Fewer are described one by one, so a large library is not read for a few of its files.
 */
export const WHOLE_LIBRARY_FROM = 8;

/**
 * Layouts from DSPFFD into an outfile in the sync library, removed again with DLTF. A file not there
 * (deleted, renamed, or with *ALL one the profile may not use) is left out, as in the catalogue.
 */
export async function dspffdLayouts(
  c: IbmiConnection,
  refs: readonly TableRef[],
  syncLibrary: string,
): Promise<FileLayout[]> {
  if (refs.length === 0) return [];
  const lib = ibmiName(syncLibrary, 'Sync library');
  const keys = await primaryKeys(c, refs);
  const members = await membersOf(c, refs);
  const byLibrary = new Map<string, string[]>();
  for (const ref of refs) {
    const { library, file } = systemNames(ref);
    const files = byLibrary.get(library) ?? [];
    if (files.length === 0) byLibrary.set(library, files);
    files.push(file);
  }
  const fields = new Map<string, FieldDef[]>();
  try {
    for (const [library, files] of byLibrary)
      for (const described of files.length >= WHOLE_LIBRARY_FROM ? ['*ALL'] : files) {
        try {
          await c.command(
            `DSPFFD FILE(${library}/${described}) OUTPUT(*OUTFILE) OUTFILE(${lib}/${FILE_LAYOUT})`,
          );
        } catch (error) {
          // CPF9812: the file is not there; CPF3012: no file of the library the profile may use.
          if (error instanceof IbmiError && ['CPF9812', 'CPF3012'].includes(error.messageId)) continue;
          throw error;
        }
        const rows = await c.query(
          `SELECT WHFILE, WHFLDE, WHFLDT, WHFLDB, WHFLDD, WHFLDP, WHCCSID, WHNULL, WHFMT, WHSEP, WHVARL FROM ${lib}.${FILE_LAYOUT} ORDER BY WHFILE, WHFOBO`,
        );
        for (const r of rows) {
          const k = `${library}/${text(r.WHFILE)}`;
          const list = fields.get(k) ?? [];
          if (list.length === 0) fields.set(k, list);
          list.push({ name: text(r.WHFLDE), type: dspffdField(r), nullable: text(r.WHNULL) === 'Y' });
        }
      }
  } finally {
    await c.command(`DLTF FILE(${lib}/${FILE_LAYOUT})`).catch(() => undefined);
  }
  return refs.flatMap((ref) => {
    const { library, file } = systemNames(ref);
    const found = fields.get(`${library}/${file}`);
    return found ? [layoutOf(ref, found, keys, members)] : [];
  });
}

/** A file whose rows the entity does not identify: no primary key and no key chosen, or an unknown column. */
export class UnkeyedFile extends Error {}

/** How an entity's row identification keys the file's rows; UnkeyedFile when it cannot. */
export function rowIdentity(
  layout: FileLayout,
  chosen: Entity['rowIdentification'] | undefined,
): string[] | 'rrn' {
  const id = chosen ?? { kind: 'primaryKey' as const };
  if (id.kind === 'rrn') return 'rrn';
  if (id.kind === 'logicalKey') {
    const unknown = unknownColumns(layout, id.columns).map((c) => ibmiFold(c));
    if (unknown.length > 0)
      throw new UnkeyedFile(
        `The logical key of ${tableKey(layout.ref)} names columns it does not have: ${unknown.join(', ')}; choose its key again in the pipeline's Tables`,
      );
    return id.columns.map((c) => ibmiFold(c));
  }
  if (layout.primaryKey.length === 0)
    throw new UnkeyedFile(
      `${tableKey(layout.ref)} has no primary key: identify its rows by a logical key (any columns, all allowed) or by RRN in the pipeline's Tables`,
    );
  return layout.primaryKey;
}
