// Tables in the sandbox: CREATE SCHEMA/TABLE, ALTER and DROP TABLE, INSERT, UPDATE, DELETE, TRUNCATE
// and SELECT, each family in its own file; this one sends a statement to its family.
import type { StatementResult } from '../tds/hostSession';
import type { SandboxDatabase } from './database';
import { SqlError } from './basics';
import { closing, isOp, isWord, nameOf, solid, type Token } from './lexer';
import { alterColumns } from './alterTable';
import { createType, dropType } from './aliasTypes';
import { createIndex, dropIndex } from './indexes';
import { rowversionColumn, withRowversionSet } from './rowversion';
import { selectListTypes } from './selectTypes';
import { exactAssignments } from './exactDecimals';
import {
  claimedVersion,
  cleanup,
  disableTable,
  enableTable,
  isTracked,
  setContext,
  truncated,
} from './changeTracking';
import { constant, type Parameters } from './params';
import { readName, writeTarget } from './tableNames';
import { cannotFind, denied, unsupportedHere } from './sqlErrors';
import { run, write } from './runSql';
import { translate } from './translate';
import { createTable } from './createTable';
import { insert, selectInto, selectIntoAt } from './insert';

/** Runs a table statement; undefined when the statement is not one of these. */
export function runTableStatement(
  db: SandboxDatabase,
  tokens: Token[],
  params: Parameters,
): StatementResult | undefined {
  const s = solid(tokens);
  // WITH CHANGE_TRACKING_CONTEXT (context) <statement>: the context is recorded with each change it makes.
  if (isWord(s[0], 'with') && isWord(s[1], 'change_tracking_context') && isOp(s[2], '(')) {
    const open = tokens.indexOf(s[2] as Token);
    const close = closing(tokens, open);
    const context = constant(tokens.slice(open + 1, close), params);
    if (context === null)
      throw new SqlError({
        number: 50000,
        state: 1,
        class: 16,
        message: 'The CHANGE_TRACKING_CONTEXT value cannot be NULL.',
      });
    const blob = Buffer.isBuffer(context) ? context : Buffer.from(String(context), 'utf16le');
    return write(db, () => {
      setContext(db, blob.subarray(0, 128));
      try {
        return runTableStatement(db, tokens.slice(close + 1), params) ?? unsupportedHere(tokens);
      } finally {
        setContext(db, null);
      }
    });
  }
  if (isWord(s[0], 'alter') && isWord(s[1], 'table')) {
    const { schema, name, next } = readName(s, 2);
    const table = db.table(schema, name);
    if (!table) throw cannotFind(4902, name);
    // SQL Server does not tell a table the login may not alter from one that is not there.
    const tracking = isWord(s[next + 1], 'change_tracking');
    if (tracking && !db.rights.alter) throw cannotFind(4902, name);
    if (isWord(s[next], 'enable') && isWord(s[next + 1], 'change_tracking')) {
      const track = solid(s.slice(next + 2));
      const columns = track.findIndex((x) => isWord(x, 'track_columns_updated'));
      enableTable(db, table, columns >= 0 && isWord(track[columns + 2], 'on'));
      return {};
    }
    if (isWord(s[next], 'disable') && isWord(s[next + 1], 'change_tracking')) {
      disableTable(db, table);
      return {};
    }
    return alterColumns(db, table, s, next);
  }
  if (isWord(s[0], 'insert', 'update', 'delete', 'truncate') && !db.rights.write) {
    const target = writeTarget(s, db);
    const verb = isWord(s[0], 'truncate') ? 'ALTER' : (s[0]?.text.toUpperCase() ?? 'INSERT');
    if (target) throw denied(verb, db, target);
  }
  if (isWord(s[0], 'create') && isWord(s[1], 'schema')) {
    if (!db.rights.createSchema) {
      throw new SqlError({
        number: 262,
        state: 1,
        class: 14,
        message: `CREATE SCHEMA permission denied in database '${db.name}'.`,
      });
    }
    db.createSchema(nameOf(s[2]));
    return {};
  }
  if (isWord(s[0], 'create') && isWord(s[1], 'table')) return createTable(db, tokens);
  if (isWord(s[0], 'create') && isWord(s[1], 'type')) return createType(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'type')) return dropType(db, tokens);
  if (isWord(s[0], 'create') && s.slice(1, 4).some((t) => isWord(t, 'index'))) return createIndex(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'index')) return dropIndex(db, tokens);
  if (isWord(s[0], 'drop') && isWord(s[1], 'table')) {
    const ifExists = isWord(s[2], 'if') && isWord(s[3], 'exists');
    const { schema, name } = readName(s, ifExists ? 4 : 2);
    const table = db.table(schema, name);
    if (table && isTracked(db, table.objectId)) disableTable(db, table);
    db.dropTable(schema, name, ifExists);
    return {};
  }
  if (isWord(s[0], 'truncate') && isWord(s[1], 'table')) {
    const { schema, name } = readName(s, 2);
    const table = db.table(schema, name);
    if (!table) throw cannotFind(4701, name);
    write(db, () => {
      const claimed = claimedVersion(db);
      run(db, `DELETE FROM ${table.sqlName}`, params);
      truncated(db, table.objectId, claimed);
    });
    return {};
  }
  if (isWord(s[0], 'insert', 'update')) {
    // A table with a rowversion column: each row inserted or updated draws the next @@DBTS.
    const stamped = rowversionColumn(writeTarget(s, db));
    const target = writeTarget(s, db);
    const converted = target && isWord(s[0], 'update') ? exactAssignments(tokens, target, params) : tokens;
    const statement =
      stamped && isWord(s[0], 'update') ? withRowversionSet(converted, stamped.name) : converted;
    const work = () =>
      isWord(s[0], 'insert')
        ? insert(db, statement, params)
        : run(db, translate(statement, params, db), params, target && `${target.schema}.${target.name}`);
    return write(db, () => (stamped ? db.rowversions.during(db.db, work) : work()));
  }
  if (isWord(s[0], 'delete')) return write(db, () => run(db, translate(tokens, params, db), params));
  if (isWord(s[0], 'select') && selectIntoAt(s) >= 0)
    return write(db, () => selectInto(db, tokens, params, selectIntoAt(s)));
  if (isWord(s[0], 'select', 'with')) {
    // Reading change tracking outside a transaction: expired changes are cleaned up first.
    if (
      !db.db.inTransaction &&
      s.some((x) => isWord(x, 'changetable', 'change_tracking_min_valid_version'))
    ) {
      db.db.transaction(() => cleanup(db, db.now()))();
    }
    return run(db, translate(tokens, params, db), params, undefined, selectListTypes(tokens));
  }
  return undefined;
}
