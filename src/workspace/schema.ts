/**
 * The workspace object's SQLite schema. `meta` holds the object's scope (agent, owner) and the
 * change counter; `files` is the manifest (path -> blob hash), each row stamped with the change
 * number that last touched it; `checkpoints`/`checkpoint_files` are copies of the manifest (no
 * blob copies); `task_checkpoints` maps a task to the checkpoint taken before its first change;
 * `memory` holds the owner's CONTEXT.md; `changes` is the change history (`person`: who, when a
 * person made the change); `task_starts` holds a state file's text when a task first changed it;
 * `recent_calls` the answers of recent changes by idempotency key.
 * Append migrations; never edit one.
 */
import { RECENT_CALLS_TABLE } from "../platform/recent-calls.ts";
import { Schema, withoutRowid } from "../store/sqlite-migrations.ts";

/** The object's migrations (exported for the test that holds a new object's schema equal). */
export const WORKSPACE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE files (path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL,
    updated_at TEXT NOT NULL, seq INTEGER NOT NULL);
  CREATE INDEX files_hash ON files (hash);
  CREATE TABLE checkpoints (id TEXT PRIMARY KEY, n INTEGER NOT NULL UNIQUE, label TEXT NOT NULL,
    created_at TEXT NOT NULL, automatic INTEGER NOT NULL, seq INTEGER NOT NULL, path TEXT,
    task_id TEXT);
  CREATE TABLE checkpoint_files (checkpoint_id TEXT NOT NULL, path TEXT NOT NULL,
    hash TEXT NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (checkpoint_id, path));
  CREATE INDEX checkpoint_files_hash ON checkpoint_files (hash);
  CREATE TABLE task_checkpoints (task_id TEXT PRIMARY KEY, checkpoint_id TEXT NOT NULL);
  `,
  // The owner's memory with this agent (see files/memory-file.ts); no row: not read from R2 yet.
  "CREATE TABLE memory (id INTEGER PRIMARY KEY CHECK (id = 1), text TEXT)",
  // The change history (see change-log.ts).
  `
  CREATE TABLE changes (n INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, op TEXT NOT NULL,
    path TEXT, task_id TEXT NOT NULL, agent TEXT, line TEXT NOT NULL, added INTEGER NOT NULL,
    removed INTEGER NOT NULL);
  CREATE INDEX changes_by_task ON changes (task_id);
  `,
  // A person's changes (the files API, files sent with a message): who made them.
  "ALTER TABLE changes ADD COLUMN person TEXT",
  // A state file's text when a task first changed it (see task-starts.ts).
  `
  CREATE TABLE task_starts (n INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL,
    path TEXT NOT NULL, text TEXT, UNIQUE (task_id, path));
  `,
  // The idempotency keys of the changes (platform/recent-calls.ts).
  RECENT_CALLS_TABLE,
  // Small rows keyed by text: one row written per insert, not two.
  withoutRowid("recent_calls"),
  withoutRowid("meta"),
  // Nothing reads the files by hash in SQL (the manifest is kept in memory): the index only cost a
  // row written with every file written.
  "DROP INDEX files_hash",
];

/** The workspace object's schema on `sql`: migrated if the database holds it, else left absent. */
export function workspaceSchema(sql: SqlStorage): Schema {
  return Schema.open(sql, WORKSPACE_MIGRATIONS);
}
