// How each database compares the names a DBA gives: two names that compare equal are one object there,
// whatever their spelling. The engine's name rules (main/engine/nameRules.ts) fold names with these
// before comparing, so that two entities never write one table and no entity meets the engine's own.

/** SQLite folds the 26 ASCII letters only: `Abc` = `aBC`, `É` ≠ `é` (sqlite.org, "LIKE" and NOCASE). */
export const sqliteFold = (name: string): string => name.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** PostgreSQL's NAMEDATALEN - 1: a longer identifier is cut to this many bytes. */
export const POSTGRES_NAME_BYTES = 63;

/**
 * A quoted PostgreSQL identifier as the server keeps it: its exact characters, cut to 63 bytes of
 * UTF-8 at a character boundary (the server's pg_mbcliplen), so two long names can become one.
 */
const utf8 = new TextEncoder();

export function postgresName(name: string): string {
  if (utf8.encode(name).length <= POSTGRES_NAME_BYTES) return name;
  let out = '';
  let used = 0;
  for (const ch of name) {
    const size = utf8.encode(ch).length;
    if (used + size > POSTGRES_NAME_BYTES) break;
    out += ch;
    used += size;
  }
  return out;
}

/**
 * SQL Server under a case-insensitive collation (the default, SQL_Latin1_General_CP1_CI_AS, and every
 * `_CI_` one): letters compare without case, Unicode letters too. Where the collation is not known
 * yet, this is the safe comparison: it never takes two names one table would hold for two.
 */
export const sqlServerFold = (name: string): string => name.toLowerCase();

export { IBMI_NATIONAL_CHARACTERS, ibmiFold } from './config/ibmiNames';

/**
 * A table as `schema.table`, each part bracket-quoted only when it holds `.`, `[` or `]`, so that the
 * text names one (schema, table) pair and no other: `[a.b].c` and `a.[b.c]` stay two. Plain names keep
 * their plain form, which is how checkpoints, events and screens have always shown them.
 */
export function tableText(schema: string, table: string): string {
  const part = (p: string) => (/[.[\]]/.test(p) ? `[${p.replaceAll(']', ']]')}]` : p);
  return `${part(schema)}.${part(table)}`;
}

/** The (schema, table) pair a tableText() names: its inverse, so `[a.b].c` gives `a.b` and `c`. */
export function tableRefOfText(text: string): { schema: string; table: string } {
  const parts: string[] = [];
  let at = 0;
  while (at <= text.length && parts.length < 2) {
    if (text[at] === '[') {
      let part = '';
      let i = at + 1;
      for (; i < text.length; i++) {
        if (text[i] === ']') {
          if (text[i + 1] === ']') {
            part += ']';
            i++;
            continue;
          }
          break;
        }
        part += text[i];
      }
      parts.push(part);
      at = i + 2;
    } else {
      const end = parts.length === 0 ? text.indexOf('.', at) : text.length;
      if (end < 0) break;
      parts.push(text.slice(at, end));
      at = end + 1;
    }
  }
  const [schema, table] = parts;
  if (schema === undefined || table === undefined || tableText(schema, table) !== text)
    throw new RangeError(`"${text}" does not name a table as schema.table.`);
  return { schema, table };
}
