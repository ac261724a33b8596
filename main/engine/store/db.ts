import Database from 'better-sqlite3';
import { migrations } from './migrations';

export type Db = Database.Database;

/** Opens (or creates) the state store and brings its schema up to date in one transaction. */
export function openDb(file: string): Db {
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
