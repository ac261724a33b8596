// Schema changes of the engine's state store, applied in order; PRAGMA user_version records how far.
// Append only: a released migration is never edited.
export const migrations: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE pipelines (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE agents (
     pipeline_id TEXT NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
     id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, role TEXT NOT NULL,
     state TEXT NOT NULL DEFAULT 'new', failure_reason TEXT,
     host_credentials TEXT, secrets_sealed TEXT, configuration TEXT,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (pipeline_id, id));
   CREATE TABLE entities (
     pipeline_id TEXT NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
     position INTEGER NOT NULL, definition TEXT NOT NULL,
     PRIMARY KEY (pipeline_id, position));
   CREATE TABLE checkpoints (
     pipeline_id TEXT NOT NULL, agent_id TEXT NOT NULL, entity TEXT NOT NULL,
     value TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (pipeline_id, agent_id, entity),
     FOREIGN KEY (pipeline_id, agent_id) REFERENCES agents(pipeline_id, id) ON DELETE CASCADE);
   CREATE TABLE events (
     id INTEGER PRIMARY KEY AUTOINCREMENT, pipeline_id TEXT NOT NULL, agent_id TEXT,
     at TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL);
   CREATE INDEX events_by_pipeline ON events (pipeline_id, id);
   CREATE TABLE backlog (
     pipeline_id TEXT NOT NULL, agent_id TEXT NOT NULL, at TEXT NOT NULL,
     rows_to_read REAL, minutes_left REAL, versions_behind REAL,
     FOREIGN KEY (pipeline_id, agent_id) REFERENCES agents(pipeline_id, id) ON DELETE CASCADE);
   CREATE INDEX backlog_by_agent ON backlog (pipeline_id, agent_id, at);`,
  `ALTER TABLE backlog ADD COLUMN measured_minutes_left REAL;`,
  // Checkpoints live at the source (the sync schema or library), never here: the table was never used.
  // Events go with their pipeline, so a pipeline created again under the same id starts with none; the
  // time index serves the pruning by age.
  `DROP TABLE checkpoints;
   DELETE FROM events WHERE pipeline_id NOT IN (SELECT id FROM pipelines);
   CREATE TRIGGER events_go_with_pipeline AFTER DELETE ON pipelines
     BEGIN DELETE FROM events WHERE pipeline_id = OLD.id; END;
   CREATE INDEX events_by_time ON events (at);`,
  // Finished verifies and repairs, the newest few per agent (docs/verify.md), gone with their agent.
  `CREATE TABLE verify_reports (
     pipeline_id TEXT NOT NULL, agent_id TEXT NOT NULL, id TEXT NOT NULL, finished_at TEXT NOT NULL,
     report TEXT NOT NULL,
     PRIMARY KEY (pipeline_id, agent_id, id),
     FOREIGN KEY (pipeline_id, agent_id) REFERENCES agents(pipeline_id, id) ON DELETE CASCADE);`,
  // The charts' figures per agent and per source table, one row a minute, kept a day (store/series.ts).
  // tbl '' is the agent as a whole.
  `CREATE TABLE series (
     pipeline_id TEXT NOT NULL, agent_id TEXT NOT NULL, tbl TEXT NOT NULL, minute INTEGER NOT NULL,
     changes INTEGER NOT NULL DEFAULT 0, lag_ms REAL, backlog_rows REAL,
     PRIMARY KEY (pipeline_id, agent_id, tbl, minute),
     FOREIGN KEY (pipeline_id, agent_id) REFERENCES agents(pipeline_id, id) ON DELETE CASCADE
   ) WITHOUT ROWID;
   CREATE INDEX series_by_minute ON series (minute);`,
  // Rows the target refused, kept with their reason until retried or discarded (store/exceptions.ts),
  // gone with their agent; one row per change (table, key, position): a batch replayed after a crash
  // keeps it once.
  `CREATE TABLE exceptions (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     pipeline_id TEXT NOT NULL, agent_id TEXT NOT NULL, tbl TEXT NOT NULL, op TEXT NOT NULL,
     key TEXT NOT NULL, position TEXT NOT NULL, row_values TEXT, error TEXT NOT NULL,
     at TEXT NOT NULL, tried_at TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 1,
     UNIQUE (pipeline_id, agent_id, tbl, key, position),
     FOREIGN KEY (pipeline_id, agent_id) REFERENCES agents(pipeline_id, id) ON DELETE CASCADE);
   CREATE INDEX exceptions_by_time ON exceptions (at);`,
  // A row the source could not read keeps its record image (hex), as the source holds it.
  `ALTER TABLE exceptions ADD COLUMN raw TEXT;`,
  // Tables whose shaping changed while their pipeline did not run (docs/shaping.md): copied again at
  // its next Start, so the rows already at the target never keep the old shaping (a clear value).
  `CREATE TABLE pending_copies (
     pipeline_id TEXT NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
     tbl TEXT NOT NULL, reason TEXT NOT NULL,
     PRIMARY KEY (pipeline_id, tbl));`,
  // Which secrets a credentials PUT stored (JSON array of keys): an optional secret never given is
  // answered "not set" (before, every secret counted as set once any was sealed).
  `ALTER TABLE agents ADD COLUMN secrets_set TEXT;`,
  // Where each minute's peak lag went: the split of its slowest batch (store/series.ts).
  `ALTER TABLE series ADD COLUMN source_ms REAL;
   ALTER TABLE series ADD COLUMN engine_ms REAL;
   ALTER TABLE series ADD COLUMN target_ms REAL;`,
];
