import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrations } from './migrations';

export type Db = Database.Database;

/**
 * The store and its WAL (which holds kept-aside rows in clear) readable by the engine's user alone,
 * whatever the umask or the folder: SQLite gives its -wal and -shm files the database file's mode, so
 * the file is made 0600 before SQLite opens it, and a store made by an older version is set so too.
 */
function ownedByUserAlone(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

/** Opens (or creates) the state store and brings its schema up to date in one transaction. */
export function openDb(file: string): Db {
  if (file !== ':memory:') ownedByUserAlone(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > migrations.length) {
    db.close();
    throw new Error(
      `The state store ${file} was written by a newer version (schema ${current}); upgrade the app.`,
    );
  }
  db.transaction(() => {
    for (let v = current; v < migrations.length; v++) {
      db.exec(migrations[v] ?? '');
      db.pragma(`user_version = ${v + 1}`);
    }
  })();
  return db;
}
