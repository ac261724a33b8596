// SELECT on one table denied to one login, as a DBA does with DENY SELECT ON dbo.T TO reader, and
// given back with GRANT or REVOKE ("DENY Object Permissions (Transact-SQL)"): the denial belongs to
// the object, so a table dropped and created again starts without it. Other permissions and other
// securables are not modelled: the statement says so rather than pretend.
import { SqlError } from './basics';
import { dotted, isOp, isWord, nameOf, solid, type Token } from './lexer';
import { tableNamed } from './tableNames';
import { denied, unsupportedHere } from './sqlErrors';
import type { SandboxDatabase } from './database';
import type { TableInfo } from './schema';

const cannotFind = (what: 'object' | 'user', name: string) =>
  new SqlError({
    number: 15151,
    state: 1,
    class: 16,
    message: `Cannot find the ${what} '${name}', because it does not exist or you do not have permission.`,
  });

/** DENY | GRANT | REVOKE SELECT ON [OBJECT::]table TO|FROM principal [, …]. */
export function runObjectPermission(db: SandboxDatabase, tokens: Token[]): Record<string, never> {
  const s = solid(tokens);
  const verb = (s[0]?.text ?? '').toLowerCase();
  if (!isWord(s[1], 'select') || !isWord(s[2], 'on')) unsupportedHere(tokens);
  let at = 3;
  // OBJECT:: names the securable's class; the lexer may give "::" as one operator or two.
  if (isWord(s[at], 'object')) {
    if (isOp(s[at + 1], '::')) at += 2;
    else if (isOp(s[at + 1], ':') && isOp(s[at + 2], ':')) at += 3;
  }
  const { parts, next } = dotted(s, at);
  const table = tableNamed(db, parts);
  if (!table) throw cannotFind('object', parts.join('.'));
  if (!isWord(s[next], 'to', 'from')) unsupportedHere(tokens);
  const principals = s.slice(next + 1).filter((t) => !isOp(t, ','));
  const logins = db.serverLogins();
  for (const p of principals) {
    const name = nameOf(p);
    const login = logins.find((l) => l.toLowerCase() === name.toLowerCase());
    if (!login) throw cannotFind('user', name);
    db.selectDenials.set(db.name, login, table, verb === 'deny');
  }
  return {};
}

/** Whether SELECT on the table is denied to the session's login. */
export const selectDenied = (db: SandboxDatabase, table: TableInfo): boolean =>
  db.selectDenials.isDenied(db.name, db.login, table);

/** SQL Server's 229 when the session's login may not read the table. */
export function refuseDeniedSelect(db: SandboxDatabase, table: TableInfo | undefined): void {
  if (table && selectDenied(db, table)) throw denied('SELECT', db, table);
}
