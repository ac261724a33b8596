// An entity's forceCcsid: the CCSID a file's text is really in, over the tag the file gives it. Files
// tagged 65535 (FOR BIT DATA, a DDS field with no CCSID) that hold text, and fields tagged with the
// wrong CCSID (a program wrote 273 bytes into a 37 field), are common on IBM i; the journal's record
// image holds the bytes as written, so the agent decodes them by the CCSID the entity names. SQL
// would convert from the tag, so the copy reads such a field as bytes (memberReader.ts, fieldRead).
import { BINARY_CCSID, ccsidKind } from '../../../lib/ibmi/ccsid';
import { sqlTypeName, type FieldDef, type FieldType } from '../../../lib/ibmi/recordImage';
import type { Entity } from '../../../shared/controlApi';
import { columnSetting, derivedLayout, unknownColumns, type DerivedLayouts, type FileLayout } from './layout';

export type ForceCcsid = NonNullable<Entity['forceCcsid']>;

/** The kinds a character field's bytes may be said to be in: one byte, mixed with shift-out/in, UTF-8. */
const CHARACTER_KINDS = new Set(['single', 'mixed', 'utf8']);

/** A CHAR or VARCHAR field whose CCSID the agent has no table for (`unsupported` in the layout). */
function untabledCharacter(
  t: FieldType,
): { varying: boolean; length: number; ccsid: number | undefined } | null {
  if (t.kind !== 'unsupported') return null;
  const m = /^(VAR)?CHAR\((\d+)\)$/.exec(t.sqlType);
  // layout.ts gives such a field the reason "CCSID n is not one the agent has a table for".
  const tag = /^CCSID (\d+) /.exec(t.reason)?.[1];
  return m
    ? { varying: m[1] !== undefined, length: Number(m[2]), ccsid: tag ? Number(tag) : undefined }
    : null;
}

/** The field's tag as the file gives it, for messages: `CHAR(10) CCSID 37`, `CHAR(10) FOR BIT DATA`. */
function taggedText(f: FieldDef): string {
  const t = f.type;
  if ((t.kind === 'hex' || t.kind === 'varhex') && t.forBitData)
    return `${t.kind === 'hex' ? 'CHAR' : 'VARCHAR'}(${t.length}) CCSID ${BINARY_CCSID}`;
  if ('ccsid' in t) return `${sqlTypeName(t)} CCSID ${t.ccsid}`;
  return sqlTypeName(t);
}

/**
 * Whether the field is text a table-wide CCSID covers: CHAR and VARCHAR, FOR BIT DATA included, not
 * BINARY, VARBINARY or DDS H (bytes by declaration), and not GRAPHIC (two-byte units).
 */
function coveredByTable(t: FieldType): boolean {
  if (t.kind === 'char' || t.kind === 'varchar') return true;
  if (t.kind === 'hex' || t.kind === 'varhex') return t.forBitData === true;
  return untabledCharacter(t) !== null;
}

/** The field read as text in `ccsid`; the reason it cannot be, naming the column, the value and the rule. */
function forcedField(table: string, f: FieldDef, ccsid: number, explicit: boolean): FieldDef | string {
  const at = `${table} forceCcsid${explicit ? `.${f.name}` : ''} = ${ccsid}`;
  const kind = ccsidKind(ccsid);
  if (kind === null || !CHARACTER_KINDS.has(kind))
    return kind === null
      ? `${at}: the agent has no table for CCSID ${ccsid} (docs/journal-agent.md lists the CCSIDs it decodes).`
      : `${at}: CCSID ${ccsid} is a double-byte or UTF-16 CCSID; a CHAR or VARCHAR field's bytes take a single-byte, mixed or UTF-8 CCSID.`;
  const t = f.type;
  const tagged = 'ccsid' in t ? t.ccsid : BINARY_CCSID;
  const untabled = untabledCharacter(t);
  let type: FieldType;
  if (t.kind === 'char' || t.kind === 'hex' || (untabled && !untabled.varying))
    type = { kind: 'char', length: untabled?.length ?? (t as { length: number }).length, ccsid };
  else if (t.kind === 'varchar' || t.kind === 'varhex' || untabled)
    type = { kind: 'varchar', length: untabled?.length ?? (t as { length: number }).length, ccsid };
  else
    return `${at}: ${f.name} is ${taggedText(f)}; a CCSID is forced on CHAR, VARCHAR, BINARY and VARBINARY columns (FOR BIT DATA included), not on graphic, numeric or date columns.`;
  if (tagged === ccsid && t.kind !== 'unsupported')
    return `${at}: ${f.name} is already tagged CCSID ${ccsid}; leave it out of forceCcsid.`;
  return { ...f, type, taggedCcsid: untabled ? (untabled.ccsid ?? tagged) : tagged };
}

/**
 * The layout with the entity's forced CCSIDs in place of the file's tags, and the target columns'
 * types with them (text, where the tag said bytes); a misfit is an Error naming the column, the value
 * and the rule, raised before anything is read.
 */
export function forcedLayout(layout: FileLayout, force: ForceCcsid | undefined, table: string): FileLayout {
  if (force === undefined) return layout;
  return derivedLayout(made, layout, JSON.stringify(force), () => withForced(layout, force, table));
}

const made: DerivedLayouts = new WeakMap();

function withForced(layout: FileLayout, force: ForceCcsid, table: string): FileLayout {
  const perColumn = typeof force === 'number' ? null : force;
  if (perColumn) {
    const unknown = unknownColumns(layout, Object.keys(perColumn));
    if (unknown.length)
      throw new Error(
        `${table} forceCcsid names columns the file does not have: ${unknown.join(', ')} (it has ${layout.fields.map((f) => f.name).join(', ')}).`,
      );
  }
  const chosen = (f: FieldDef): number | undefined =>
    perColumn ? columnSetting(perColumn, f) : coveredByTable(f.type) ? (force as number) : undefined;
  const fields = layout.fields.map((f) => {
    const ccsid = chosen(f);
    if (ccsid === undefined) return f;
    // A table-wide CCSID leaves a field already tagged with it as it is.
    if (!perColumn && 'ccsid' in f.type && f.type.ccsid === ccsid) return f;
    const forced = forcedField(table, f, ccsid, perColumn !== null);
    if (typeof forced === 'string') throw new Error(forced);
    return forced;
  });
  if (!perColumn && fields.every((f, i) => f === layout.fields[i]))
    throw new Error(
      `${table} forceCcsid = ${force as number}: the file has no CHAR or VARCHAR column it would change (${layout.fields.map((f) => `${f.name} ${taggedText(f)}`).join(', ')}).`,
    );
  return {
    ...layout,
    fields,
    columns: layout.columns.map((c, i) => {
      const f = fields[i] as FieldDef;
      return f === layout.fields[i] ? c : { ...c, sourceType: sqlTypeName(f.type) };
    }),
  };
}

/** A forced field in words for a table's story and the checks: `NAME CHAR(10) CCSID 37, read as 273`. */
export const forcedText = (f: FieldDef): string | null =>
  f.taggedCcsid === undefined || !('ccsid' in f.type)
    ? null
    : `${f.name} ${sqlTypeName(f.type)} CCSID ${f.taggedCcsid}, read as CCSID ${f.type.ccsid}`;
