// Subjects, durable consumer names and key-value keys from names a DBA gave: one exact, reversible
// rule per token, legal in all three. Any byte of the name's UTF-8 outside [A-Za-z0-9_-] is written
// `=HH` (two upper-case hex digits), `=` itself included, so every legal SQL Server or IBM i name (dots,
// spaces, `~ $ # @ £`) maps to one token and back, and no escaped token holds `=` followed by anything
// but two hex digits, nor `~`: the target's own subjects (`=checkpoint`) never meet a table's, and `~`
// joins tokens where a dot may not stand (a consumer name).
const PLAIN = /^[A-Za-z0-9_-]$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function escapeToken(name: string): string {
  if (name.length === 0) throw new RangeError('An empty name has no subject token.');
  let out = '';
  for (const ch of name) {
    if (PLAIN.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of encoder.encode(ch)) out += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function unescapeToken(token: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (token[i] !== '=') {
      if (!PLAIN.test(token[i] as string)) throw new RangeError(`"${token}" is not an escaped token.`);
      bytes.push(c);
      continue;
    }
    const hex = token.slice(i + 1, i + 3);
    if (!/^[0-9A-F]{2}$/.test(hex)) throw new RangeError(`"${token}" is not an escaped token.`);
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  return decoder.decode(Uint8Array.from(bytes));
}

/** Where the target's own messages go: tokens no escaped name can be. */
export const checkpointSubject = (prefix: string, pipelineId: string) =>
  `${prefix}.=checkpoint.${escapeToken(pipelineId)}`;
export const transactionSubject = (prefix: string) => `${prefix}.transaction`;
/** Schema-change events, on the prefix itself (Debezium's schema-change topic is the topic prefix). */
export const schemaChangeSubject = (prefix: string) => prefix;

/** A table's subject: `<prefix>.<database>.<schema>.<table>` (SQL Server) or `<prefix>.<library>.<file>`. */
export function tableSubject(prefix: string, parts: readonly string[]): string {
  return [prefix, ...parts.map(escapeToken)].join('.');
}

/** Tokens joined where a dot may not stand: `~` is never part of an escaped token. */
export const joinedName = (tokens: readonly string[]) => tokens.join('~');
