// One SQL statement of the Db2 for i subset the sandbox speaks, dispatched by its first words.
import type { IbmiRow } from '../../../lib/ibmi/connection';
import { IbmiError } from '../../../lib/ibmi/connection';
import { q, type SqlValue } from '../system/files';
import { sqlError } from '../system/messages';
import { runCommand } from '../cl/commands';
import { alterTable } from './alter';
import { createAlias, createTable, drop, readName } from './ddl';
import { insert, remove, update } from './dml';
import { isOp, isWord, lex, nameOf, solid, type Token } from './lexer';
import { readPending } from './pendingRead';
import { runQuery } from './results';
import { ParamCursor, translate, type QueryContext } from './translate';

export interface StatementContext extends QueryContext {
  setSchema(schema: string): void;
  commit(): void;
  rollback(): void;
}

function query(ctx: QueryContext, tokens: Token[], params: ParamCursor): IbmiRow[] {
  // VALUES expr, … is a one-row query.
  const body = isWord(tokens[0], 'VALUES')
    ? [{ kind: 'word' as const, value: 'SELECT', text: 'SELECT' }, ...stripParens(tokens.slice(1))]
    : tokens;
  const pending = readPending(ctx, body);
  if (pending) return pending;
  const t = translate(ctx, body, params);
  try {
    return runQuery(ctx.system.db, t.sql, t.bound);
  } catch (e) {
    throw mapSqliteError(e);
  } finally {
    for (const temp of t.temps) ctx.system.db.exec(`DROP TABLE IF EXISTS temp.${q(temp)}`);
  }
}

function stripParens(tokens: Token[]): Token[] {
  return isOp(tokens[0], '(') && isOp(tokens.at(-1), ')') ? tokens.slice(1, -1) : tokens;
}

function mapSqliteError(e: unknown): unknown {
  if (e instanceof IbmiError || !(e instanceof Error)) return e;
  const column = /no such column: (\S+)/.exec(e.message);
  if (column) return sqlError(-206, (column[1] ?? '').split('.').at(-1) ?? '');
  if (/syntax error/.test(e.message))
    return sqlError(-104, /near "([^"]*)"/.exec(e.message)?.[1] ?? '', 'a Db2 for i statement');
  return e;
}

export function runStatement(ctx: StatementContext, sql: string, values: readonly SqlValue[]): IbmiRow[] {
  const tokens = solid(lex(sql.trim().replace(/;\s*$/, '')));
  const params = new ParamCursor(values);
  const first = tokens[0];
  if (!first) throw sqlError(-104, '<END-OF-STATEMENT>', 'SELECT VALUES INSERT UPDATE DELETE CREATE CALL');
  const rows = dispatch(ctx, tokens, params);
  if (params.i !== values.length) throw sqlError(-313);
  return rows;
}

function dispatch(ctx: StatementContext, tokens: Token[], params: ParamCursor): IbmiRow[] {
  const [a, b] = tokens;
  if (isWord(a, 'SELECT', 'VALUES', 'WITH') || isOp(a, '(')) return query(ctx, tokens, params);
  try {
    if (isWord(a, 'INSERT') && isWord(b, 'INTO')) return counted(insert(ctx, tokens, params));
    if (isWord(a, 'UPDATE')) return counted(update(ctx, tokens, params));
    if (isWord(a, 'DELETE') && isWord(b, 'FROM')) return counted(remove(ctx, tokens, params));
  } catch (e) {
    throw mapSqliteError(e);
  }
  if (isWord(a, 'CREATE') && isWord(b, 'SCHEMA', 'COLLECTION')) {
    const name = nameOf(tokens[2]) ?? '';
    if (!ctx.system.isSystemName(name)) throw sqlError(-104, name, 'a schema name of at most 10 characters');
    // CREATE SCHEMA runs CRTLIB, CRTJRNRCV and CRTJRN for the user: it needs *USE to each command.
    for (const cmd of ['CRTLIB', 'CRTJRNRCV', 'CRTJRN'])
      try {
        ctx.system.command(ctx.job, cmd);
      } catch {
        throw sqlError(-552, 'CREATE SCHEMA');
      }
    ctx.system.createLibrary(ctx.job, name, '', true);
    return [];
  }
  if (isWord(a, 'CREATE') && isWord(b, 'TABLE')) return none(createTable(ctx, tokens));
  if (isWord(a, 'CREATE') && isWord(b, 'ALIAS')) return none(createAlias(ctx, tokens));
  if (isWord(a, 'DROP') && isWord(b, 'TABLE', 'ALIAS')) return none(drop(ctx, tokens));
  if (isWord(a, 'ALTER') && isWord(b, 'TABLE')) return none(alterTable(ctx, tokens));
  if (isWord(a, 'CALL')) {
    const { schema, name, next } = readName(ctx, tokens, 1);
    if (schema !== 'QSYS2' || name !== 'QCMDEXC') throw sqlError(-204, name, schema, 'PROCEDURE');
    const arg = tokens[next + 1];
    const command = arg?.kind === 'param' ? params.next() : arg?.kind === 'string' ? arg.value : null;
    if (typeof command !== 'string') throw sqlError(-104, arg?.text ?? ')', 'a command string or ?');
    if (isOp(tokens[next + 2], ',')) {
      const length = tokens[next + 3];
      if (length?.kind === 'param') params.next();
    }
    runCommand({ system: ctx.system, job: ctx.job, currentLibrary: ctx.schema }, command);
    return [];
  }
  if (isWord(a, 'COMMIT')) return none(ctx.commit());
  if (isWord(a, 'ROLLBACK')) return none(ctx.rollback());
  if (isWord(a, 'SET') && (isWord(b, 'SCHEMA') || (isWord(b, 'CURRENT') && isWord(tokens[2], 'SCHEMA')))) {
    const value = tokens.filter((t) => !isOp(t, '=')).at(-1);
    const schema =
      value?.kind === 'param'
        ? String(params.next())
        : value?.kind === 'string'
          ? value.value
          : (nameOf(value) ?? '');
    if (!ctx.system.libraries.has(schema.toUpperCase())) throw sqlError(-204, schema, '*LIBL', 'LIB');
    ctx.setSchema(schema.toUpperCase());
    return [];
  }
  throw sqlError(-84);
}

const counted = (_: number): IbmiRow[] => [];
const none = (_: unknown): IbmiRow[] => [];
