// The T-SQL the sandbox runs: SET, USE, WAITFOR DELAY, RAISERROR, THROW, PRINT, SELECT of parameters,
// literals and session functions, and table statements (tsql/dml.ts). Anything else is refused by
// name, never half-run.
import { runObjectPermission } from './tsql/objectPermissions';
import type { StatementResult } from './tds/hostSession';
import type { Column, ServerMessage } from './tds/tokens';
import type { SqlValue } from './tds/dataTypes/sqlTypes';
import { ISOLATION_NAMES, type SessionTransaction } from './transactions';
import { undeclared } from './tsql/basics';
import { type SandboxDatabase } from './tsql/database';
import { SqlError } from './tsql/basics';
import { alterDatabase as alterChangeTracking, checkpoint } from './tsql/changeTracking';
import { runTableStatement } from './tsql/tableStatements';
import type { Parameters } from './tsql/params';
import { spRename } from './tsql/rename';
import { castType, convert, integerArithmetic, type Evaluated } from './tsql/convert';
import { isWord, LexError, solid, splitCommas, splitStatements, textOf, type Token } from './tsql/lexer';

export type { Parameters };

export interface SessionContext {
  login: string;
  /** @@SPID, and HOST_NAME() and APP_NAME() as the client gave them at login. */
  readonly spid: number;
  readonly hostName: string;
  readonly appName: string;
  database: string;
  useDatabase(name: string): string | undefined;
  /** CREATE DATABASE: SQL Server's error when it cannot be made (see SandboxHost.createDatabase). */
  createDatabase(name: string, caseSensitive: boolean): ServerMessage | undefined;
  /** The current database's tables. */
  tables(): SandboxDatabase;
  readonly transaction: SessionTransaction;
}

export const VERSION_TEXT =
  'Microsoft SQL Server 2022 (RTM) - 16.0.1000.6 (X64) (CDC Admin sandbox: a stand-in that speaks TDS 7.4)';

const err = (m: ServerMessage): StatementResult => ({ messages: [{ kind: 'error', ...m }], failed: true });
const unsupported = (statement: string) =>
  err({
    number: 50000,
    state: 1,
    class: 16,
    message: `The sandbox does not support this statement yet: ${statement.slice(0, 80)}`,
  });

function unquote(literal: string): string {
  return literal.slice(1, -1).replaceAll("''", "'");
}
function bareName(text: string): string {
  return text.trim().replace(/^\[(.*)\]$/, '$1');
}

/**
 * SERVERPROPERTY(name) for what tools ask first. SQL Server answers sql_variant; the sandbox answers
 * the value's own type (nvarchar or int), which a client reads as the same value. Unknown → NULL.
 */
function serverProperty(name: string): Evaluated {
  const text = (value: string): Evaluated => ({ type: { name: 'nvarchar', length: 128 }, value });
  switch (name.toLowerCase()) {
    case 'productversion':
      return text('16.0.1000.6');
    case 'productlevel':
      return text('RTM');
    case 'edition':
      return text('Developer Edition (64-bit)');
    case 'engineedition':
      return { type: { name: 'int' }, value: 3 };
    case 'servername':
    case 'machinename':
      return text('SANDBOX');
    case 'collation':
      return text('SQL_Latin1_General_CP1_CI_AS');
    case 'isintegratedsecurityonly':
      return { type: { name: 'int' }, value: 0 };
    default:
      return { type: { name: 'int' }, value: null };
  }
}

/**
 * Walks `e` from `from`, past quoted text and bracketed names: `visit` sees every other character
 * with the parenthesis depth after it; answering true ends the walk.
 */
function walk(e: string, from: number, visit: (c: string, i: number, depth: number) => boolean): void {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < e.length; i++) {
    const c = e[i] ?? '';
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '[') quote = ']';
    else {
      if (c === '(') depth++;
      if (c === ')') depth--;
      if (visit(c, i, depth)) return;
    }
  }
}

/** Index of the last character at depth 0 (outside parentheses, quotes, brackets) that `is` accepts. */
function lastTopLevel(e: string, is: (c: string, i: number) => boolean): number {
  let found = -1;
  walk(e, 0, (c, i, depth) => {
    if (depth === 0 && c !== '(' && c !== ')' && is(c, i)) found = i;
    return false;
  });
  return found;
}

/** Whether the parenthesis at `open` closes at the end of `e` (so `e` is one call, not two joined). */
function closesAtEnd(e: string, open: number): boolean {
  let closes = false;
  walk(e, open, (c, i, depth) => {
    if (c !== ')' || depth !== 0) return false;
    closes = i === e.length - 1;
    return true;
  });
  return closes;
}

/** The parts of a list at depth 0: CONVERT's arguments. */
function topLevelParts(e: string): string[] {
  const parts: string[] = [];
  let rest = e;
  for (let at = lastTopLevel(rest, (c) => c === ','); at >= 0; at = lastTopLevel(rest, (c) => c === ',')) {
    parts.unshift(rest.slice(at + 1));
    rest = rest.slice(0, at);
  }
  return [rest, ...parts];
}

/** CAST(x AS t), CONVERT(t, x[, style]), 0x… literals, (x), and integer + - * / %, with T-SQL's types. */
function evaluateTyped(e: string, params: Parameters, ctx: SessionContext): Evaluated | undefined {
  if (/^0x[0-9a-f]*$/i.test(e)) {
    const bytes = Buffer.from(e.slice(2).length % 2 ? `0${e.slice(2)}` : e.slice(2), 'hex');
    return { type: { name: 'varbinary', length: Math.max(bytes.length, 1) }, value: bytes };
  }
  const call = /^(cast|convert)\s*\((.*)\)$/is.exec(e);
  if (call && closesAtEnd(e, e.indexOf('('))) {
    const inner = call[2] ?? '';
    if ((call[1] ?? '').toLowerCase() === 'cast') {
      const as = lastTopLevel(inner, (_, i) => /^\sas\s/i.test(inner.slice(i, i + 4)));
      if (as < 0) throw new NotEvaluable();
      return convert(evaluate(inner.slice(0, as), params, ctx), castType(inner.slice(as + 4)));
    }
    const [type = '', value = '', style] = topLevelParts(inner);
    const styled = style === undefined ? null : evaluate(style, params, ctx).value;
    return convert(evaluate(value, params, ctx), castType(type), styled === null ? null : Number(styled));
  }
  if (e.startsWith('(') && closesAtEnd(e, 0)) return evaluate(e.slice(1, -1), params, ctx);
  // The last + or - at depth 0 that is not a sign, else the last * / %: left-associative, by precedence.
  const binary = (ops: string) =>
    lastTopLevel(
      e,
      (c, i) =>
        ops.includes(c) && i > 0 && !/[-+*/%(,]\s*$/.test(e.slice(0, i)) && !/e$/i.test(e.slice(0, i)),
    );
  const at = binary('+-') >= 0 ? binary('+-') : binary('*/%');
  if (at > 0) {
    const left = evaluate(e.slice(0, at), params, ctx);
    const right = evaluate(e.slice(at + 1), params, ctx);
    const integral = (v: Evaluated) => ['tinyint', 'smallint', 'int', 'bigint'].includes(v.type.name);
    if (integral(left) && integral(right)) return integerArithmetic(left, e[at] ?? '+', right);
    throw new NotEvaluable();
  }
  return undefined;
}

/** An expression the exact-type evaluator does not know: the statement goes to the SQL engine instead. */
class NotEvaluable extends Error {}

function evaluate(expr: string, params: Parameters, ctx: SessionContext): Evaluated {
  const e = expr.trim();
  const param = /^@\w+$/.exec(e);
  if (param) {
    const found = params.get(e.toLowerCase());
    if (!found) throw undeclared(e);
    return found;
  }
  const typed = evaluateTyped(e, params, ctx);
  if (typed) return typed;
  if (/^null$/i.test(e)) return { type: { name: 'int' }, value: null };
  if (/^-?\d+$/.test(e)) {
    const n = BigInt(e);
    if (n >= -2147483648n && n <= 2147483647n) return { type: { name: 'int' }, value: Number(n) };
    return {
      type: { name: 'numeric', precision: Math.max(e.replace('-', '').length, 1), scale: 0 },
      value: e,
    };
  }
  if (/^-?\d*\.\d+$|^-?\d+\.\d*$/.test(e)) {
    const [whole = '', fraction = ''] = e.replace('-', '').split('.');
    const scale = fraction.length;
    return {
      type: {
        name: 'numeric',
        precision: Math.max(whole.replace(/^0+/, '').length + scale, scale, 1),
        scale,
      },
      value: e,
    };
  }
  if (/^-?\d+(?:\.\d+)?e[+-]?\d+$/i.test(e)) return { type: { name: 'float' }, value: Number(e) };
  if (/^N'(?:[^']|'')*'$/s.test(e)) {
    const text = unquote(e.slice(1));
    return { type: { name: 'nvarchar', length: Math.max(text.length, 1) }, value: text };
  }
  if (/^'(?:[^']|'')*'$/s.test(e)) {
    const text = unquote(e);
    return { type: { name: 'varchar', length: Math.max(text.length, 1) }, value: text };
  }
  const fn = e.toLowerCase().replace(/\s+/g, '');
  const sysname = (value: string): Evaluated => ({ type: { name: 'nvarchar', length: 128 }, value });
  if (fn === '@@version') return { type: { name: 'nvarchar', length: 300 }, value: VERSION_TEXT };
  if (fn === '@@trancount') return { type: { name: 'int' }, value: ctx.transaction.count };
  if (fn === '@@servername') return sysname('SANDBOX');
  if (fn === '@@spid') return { type: { name: 'smallint' }, value: ctx.spid };
  // The options tedious sets at login (ANSI_WARNINGS, ANSI_PADDING, ANSI_NULLS, CONCAT_NULL_YIELDS_NULL, …).
  if (fn === '@@options') return { type: { name: 'int' }, value: 5496 };
  if (fn === 'host_name()') return sysname(ctx.hostName);
  if (fn === 'app_name()') return sysname(ctx.appName);
  const property = /^serverproperty\((n?'[^']*')\)$/i.exec(fn);
  if (property) return serverProperty(unquote((property[1] ?? "''").replace(/^n/i, '')));
  if (fn === 'db_name()') return sysname(ctx.database);
  if (fn === 'suser_sname()' || fn === 'system_user' || fn === 'suser_name()') return sysname(ctx.login);
  throw new NotEvaluable();
}

/** SET @v = expr, SELECT @v = expr: the value converted to the variable's declared type. */
function assignVariable(name: string, expr: string, params: Parameters, ctx: SessionContext): void {
  const variable = params.get(name.toLowerCase());
  if (!variable) throw undeclared(name);
  params.set(name.toLowerCase(), convert(evaluate(expr, params, ctx), variable.type));
}

function selectWithoutFrom(itemTokens: Token[], params: Parameters, ctx: SessionContext): StatementResult {
  const columns: Column[] = [];
  const row: SqlValue[] = [];
  const items = splitCommas(itemTokens).map(textOf);
  const assignments = items.map((item) => /^\s*(@\w+)\s*=\s*(.+)$/s.exec(item));
  if (assignments.some(Boolean)) {
    if (!assignments.every(Boolean))
      throw new SqlError({
        number: 141,
        state: 1,
        class: 15,
        message:
          'A SELECT statement that assigns a value to a variable must not be combined with data-retrieval operations.',
      });
    for (const a of assignments) assignVariable(a?.[1] ?? '', a?.[2] ?? '', params, ctx);
    return {};
  }
  for (const item of items) {
    let expr = item;
    let name = '';
    const assigned = /^(\[[^\]]+\]|\w+)\s*=\s*(.+)$/s.exec(item);
    const aliased = /^(.+?)\s+(?:as\s+)?(\[[^\]]+\]|\w+|'[^']*')$/is.exec(item);
    if (assigned && !item.trim().startsWith('@')) {
      name = bareName(assigned[1] ?? '');
      expr = assigned[2] ?? '';
    } else if (aliased && !/^(N?'.*'|@@\w+)$/is.test(item.trim())) {
      expr = aliased[1] ?? '';
      const alias = aliased[2] ?? '';
      name = alias.startsWith("'") ? unquote(alias) : bareName(alias);
    }
    const v = evaluate(expr, params, ctx);
    columns.push({ name, type: v.type, nullable: true });
    row.push(v.value);
  }
  return { resultSet: { columns, rows: [row] }, rowCount: 1 };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

async function runOne(
  tokens: Token[],
  params: Parameters,
  ctx: SessionContext,
  signal: AbortSignal,
): Promise<StatementResult> {
  const s = textOf(tokens).trim();
  const keyword = (/^\w+/.exec(s)?.[0] ?? '').toLowerCase();
  switch (keyword) {
    case 'deny':
    case 'grant':
    case 'revoke':
      return runObjectPermission(ctx.tables(), tokens);
    case 'set': {
      const assign = /^set\s+(@\w+)\s*=\s*(.+)$/is.exec(s);
      if (assign) {
        assignVariable(assign[1] ?? '', assign[2] ?? '', params, ctx);
        return {};
      }
      const xactAbort = /^set\s+xact_abort\s+(on|off)$/i.exec(s);
      if (xactAbort) {
        ctx.transaction.xactAbort = (xactAbort[1] ?? '').toLowerCase() === 'on';
        return {};
      }
      const level =
        /^set\s+transaction\s+isolation\s+level\s+(read\s+uncommitted|read\s+committed|repeatable\s+read|serializable|snapshot)$/i.exec(
          s,
        );
      if (level)
        ctx.transaction.isolation =
          ISOLATION_NAMES[(level[1] ?? '').toLowerCase().replace(/\s+/g, ' ')] ?? ctx.transaction.isolation;
      return {};
    }
    case 'begin': {
      const begin = /^begin\s+tran(?:saction)?(?:\s+(\[[^\]]+\]|\w+))?$/i.exec(s);
      if (!begin) return unsupported(s);
      return ctx.transaction.begin(undefined, bareName(begin[1] ?? ''));
    }
    case 'save': {
      const save = /^save\s+tran(?:saction)?\s+(\[[^\]]+\]|\w+)$/i.exec(s);
      if (!save) return unsupported(s);
      return ctx.transaction.save(bareName(save[1] ?? ''));
    }
    case 'checkpoint':
      if (!/^checkpoint(\s+\d+)?$/i.test(s)) return unsupported(s);
      checkpoint(ctx.tables());
      return {};
    case 'commit':
      if (!/^commit(\s+(tran(saction)?|work)(\s+\w+)?)?$/i.test(s)) return unsupported(s);
      return ctx.transaction.commit();
    case 'rollback': {
      const rollback = /^rollback(?:\s+(?:tran(?:saction)?|work)(?:\s+(\[[^\]]+\]|\w+))?)?$/i.exec(s);
      if (!rollback) return unsupported(s);
      return ctx.transaction.rollback(bareName(rollback[1] ?? ''));
    }
    case 'alter': {
      const tracking =
        /^alter\s+database\s+(\[[^\]]+\]|\w+)\s+set\s+change_tracking\s*(=\s*(on|off))?\s*(?:\((.*)\))?$/is.exec(
          s,
        );
      if (tracking) {
        const target = bareName(tracking[1] ?? '');
        if (target.toLowerCase() !== ctx.database.toLowerCase() && target.toLowerCase() !== 'current')
          return unsupported(s);
        const options: { period?: number; units?: string; autoCleanup?: boolean } = {};
        for (const part of (tracking[4] ?? '').split(',')) {
          const retention = /^\s*change_retention\s*=\s*(\d+)\s*(days|hours|minutes)\s*$/i.exec(part);
          const cleanup = /^\s*auto_cleanup\s*=\s*(on|off)\s*$/i.exec(part);
          if (retention) {
            options.period = Number(retention[1]);
            options.units = (retention[2] ?? 'days').toUpperCase();
          } else if (cleanup) options.autoCleanup = (cleanup[1] ?? '').toLowerCase() === 'on';
          else if (part.trim() !== '') return unsupported(s);
        }
        const enable = tracking[3] === undefined ? undefined : tracking[3].toLowerCase() === 'on';
        alterChangeTracking(ctx.tables(), enable, options);
        return {};
      }
      if (/^alter\s+table\b/i.test(s)) {
        ctx.transaction.refuseSnapshotDdl();
        return runTableStatement(ctx.tables(), tokens, params) ?? unsupported(s);
      }
      const option =
        /^alter\s+database\s+(\[[^\]]+\]|\w+)\s+set\s+allow_snapshot_isolation\s+(on|off)$/i.exec(s);
      if (!option) return unsupported(s);
      const target = bareName(option[1] ?? '');
      if (target.toLowerCase() !== ctx.database.toLowerCase() && target.toLowerCase() !== 'current') {
        return unsupported(s);
      }
      ctx.tables().setOption('allow_snapshot_isolation', (option[2] ?? 'off').toLowerCase());
      return {};
    }
    case 'use': {
      const wanted = bareName(s.slice(3));
      const from = ctx.database;
      const found = ctx.useDatabase(wanted);
      if (!found)
        return err({
          number: 911,
          state: 1,
          class: 16,
          message: `Database '${wanted}' does not exist. Make sure that the name is entered correctly.`,
        });
      return {
        databaseChange: { from, to: found },
        messages: [
          {
            kind: 'info',
            number: 5701,
            state: 1,
            class: 0,
            message: `Changed database context to '${found}'.`,
          },
        ],
      };
    }
    case 'waitfor': {
      const m = /^waitfor\s+delay\s+'(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?'$/i.exec(s);
      if (!m) return unsupported(s);
      const ms =
        ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 +
        Number((m[4] ?? '0').padEnd(3, '0'));
      await sleep(ms, signal);
      return {};
    }
    case 'raiserror': {
      const m = /^raiserror\s*\(\s*(N?'(?:[^']|'')*')\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/is.exec(s);
      if (!m) return unsupported(s);
      const severity = Number(m[2]);
      const message = unquote((m[1] ?? "''").replace(/^N/, ''));
      const msg = { number: 50000, state: Number(m[3]), class: severity, message };
      return severity > 10 ? err(msg) : { messages: [{ kind: 'info', ...msg }] };
    }
    case 'throw': {
      const m = /^throw\s+(\d+)\s*,\s*(N?'(?:[^']|'')*')\s*,\s*(\d+)$/is.exec(s);
      if (!m) return unsupported(s);
      return err({
        number: Number(m[1]),
        state: Number(m[3]),
        class: 16,
        message: unquote((m[2] ?? "''").replace(/^N/, '')),
      });
    }
    case 'print': {
      const text = s.slice(5).trim();
      const value = evaluate(text, params, ctx).value;
      return {
        messages: [
          { kind: 'info', number: 0, state: 1, class: 0, message: value === null ? '' : String(value) },
        ],
      };
    }
    case 'select': {
      // With only parameters, literals and session functions, the answer keeps each parameter's exact type.
      const reachesTables = solid(tokens).some((t) => isWord(t, 'from', 'into', 'union', 'where'));
      if (!reachesTables) {
        try {
          return selectWithoutFrom(tokens.slice(1), params, ctx);
        } catch (error) {
          if (!(error instanceof NotEvaluable)) throw error;
        }
      }
      return runTableStatement(ctx.tables(), tokens, params) ?? unsupported(s);
    }
    case 'declare': {
      // DECLARE @v type [= expr] [, …]: a variable of the batch, NULL until assigned.
      for (const part of topLevelParts(s.replace(/^declare\s+/i, ''))) {
        const m = /^\s*(@\w+)\s+(?:as\s+)?(.+?)(?:\s*=\s*(.+))?\s*$/is.exec(part);
        if (!m || /^table\b/i.test(m[2] ?? '')) return unsupported(s);
        const name = (m[1] ?? '').toLowerCase();
        if (params.has(name))
          throw new SqlError({
            number: 134,
            state: 1,
            class: 15,
            message: `The variable name '${m[1] ?? ''}' has already been declared. Variable names must be unique within a query batch or stored procedure.`,
          });
        const type = castType(m[2] ?? '');
        params.set(
          name,
          m[3] === undefined ? { type, value: null } : convert(evaluate(m[3], params, ctx), type),
        );
      }
      return {};
    }
    case 'exec':
    case 'execute': {
      // EXEC [sys.]sp_rename 'name', 'new name' [, 'COLUMN'], literals by position or @name = literal.
      const call = /^exec(?:ute)?\s+(?:\[?sys\]?\.)?\[?(\w+)\]?\s*(.*)$/is.exec(s);
      const proc = (call?.[1] ?? '').toLowerCase();
      if (proc !== 'sp_rename' || !/^\s*($|['N@])/i.test(call?.[2] ?? '')) {
        // SQL Server names the procedure as the statement wrote it, schema and all.
        const named =
          /^exec(?:ute)?\s+((?:\[[^\]]+\]|[\w#@$]+)(?:\.(?:\[[^\]]+\]|[\w#@$]+))*)/i.exec(s)?.[1] ?? s;
        return err({
          number: 2812,
          state: 62,
          class: 16,
          message: `Could not find stored procedure '${named.replace(/\[([^\]]+)\]/g, '$1')}'.`,
        });
      }
      const args = new Map<string, string | null>();
      (call?.[2] ?? '').split(/,(?=(?:[^']*'[^']*')*[^']*$)/).forEach((part, at) => {
        const m = /^\s*(?:(@\w+)\s*=\s*)?(?:N?'((?:[^']|'')*)'|(NULL))\s*$/is.exec(part);
        if (m)
          args.set(
            (m[1] ?? ['@objname', '@newname', '@objtype'][at] ?? '').toLowerCase(),
            m[3] ? null : (m[2] ?? '').replaceAll("''", "'"),
          );
      });
      return spRename(
        ctx.tables(),
        args.get('@objname') ?? '',
        args.get('@newname') ?? '',
        args.get('@objtype') ?? null,
      );
    }
    default: {
      // CREATE DATABASE name [COLLATE collation] ("CREATE DATABASE"): a _CS_ collation is case-sensitive.
      const create = /^create\s+database\s+(\[[^\]]+\]|\w+)\s*(?:collate\s+(\w+))?$/i.exec(s);
      if (create) {
        if (ctx.transaction.count > 0)
          return err({
            number: 226,
            state: 6,
            class: 16,
            message: 'CREATE DATABASE statement not allowed within multi-statement transaction.',
          });
        const refused = ctx.createDatabase(bareName(create[1] ?? ''), /_CS_/i.test(create[2] ?? ''));
        return refused ? err(refused) : {};
      }
      if (/^(create\s+(unique\s+)?((non)?clustered\s+)?index|drop\s+index)\b/i.test(s))
        ctx.transaction.refuseSnapshotDdl();
      return runTableStatement(ctx.tables(), tokens, params) ?? unsupported(s);
    }
  }
}

/** Runs statements in order; an error of class 16 or above ends the batch, as SQL Server does by default. */
export async function runBatch(
  sql: string,
  params: Parameters,
  ctx: SessionContext,
  signal: AbortSignal,
): Promise<StatementResult[]> {
  const results: StatementResult[] = [];
  let statements: Token[][];
  try {
    statements = splitStatements(sql);
  } catch (error) {
    if (error instanceof LexError) return [err({ number: 105, state: 1, class: 15, message: error.message })];
    throw error;
  }
  for (const statement of statements) {
    if (signal.aborted) break;
    let result: StatementResult;
    try {
      result = await runOne(statement, params, ctx, signal);
    } catch (error) {
      // A fault of the sandbox itself reaches the client as an error, never as a dropped connection.
      result = err(
        error instanceof SqlError
          ? error.serverMessage
          : {
              number: 50000,
              state: 1,
              class: 16,
              message: `The sandbox failed on this statement: ${error instanceof Error ? error.message : String(error)}`,
            },
      );
    }
    // With XACT_ABORT ON an error ends the transaction as well as the batch ("SET XACT_ABORT").
    if (result.failed && ctx.transaction.xactAbort && ctx.transaction.count > 0)
      result = { ...result, transaction: ctx.transaction.rollback().transaction };
    results.push(result);
    if (result.failed) break;
  }
  return results;
}
