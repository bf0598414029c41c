/**
 * The task Durable Object's SQLite schema. Migrated when the object opens, created when a task is
 * (an object asked about a task that does not exist writes nothing); each entry of TASK_MIGRATIONS runs
 * once, in order, recorded in `schema_version`. Append new entries; never edit one. A new task's
 * object (every task's) is created from them folded into one schema (store/sqlite-squash.ts).
 */
import { LONG_VALUES_TABLE } from "../../store/long-values.ts";
import { Schema, withoutRowid } from "../../store/sqlite-migrations.ts";

/** The task object's migrations (exported for the test that holds a new object's schema equal). */
export const TASK_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE task (
    id TEXT PRIMARY KEY,
    context_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    owner TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    parent_task_id TEXT,
    state TEXT NOT NULL,
    status_json TEXT NOT NULL,
    metadata_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    version INTEGER NOT NULL
  );
  CREATE TABLE history (seq INTEGER PRIMARY KEY, message_json TEXT NOT NULL);
  CREATE TABLE artifacts (artifact_id TEXT PRIMARY KEY, position INTEGER NOT NULL, artifact_json TEXT NOT NULL);
  CREATE TABLE events (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE TABLE conversation (idx INTEGER PRIMARY KEY, role TEXT NOT NULL, content_json TEXT NOT NULL);
  CREATE TABLE loop (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    turn INTEGER NOT NULL DEFAULT 0,
    attempt INTEGER NOT NULL DEFAULT 0,
    answer_text TEXT NOT NULL DEFAULT '',
    turn_text TEXT NOT NULL DEFAULT '',
    answer_started INTEGER NOT NULL DEFAULT 0,
    usage_json TEXT NOT NULL DEFAULT '{}',
    stop_reason TEXT
  );
  CREATE TABLE hook_state (hook TEXT NOT NULL, key TEXT NOT NULL, value_json TEXT NOT NULL, PRIMARY KEY (hook, key));
  CREATE TABLE schedule (id TEXT PRIMARY KEY, kind TEXT NOT NULL, due_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, payload_json TEXT);
  CREATE INDEX schedule_due ON schedule (due_at);
  `,
  // Message ids this task has taken, so a resent follow-up is not applied twice.
  "CREATE TABLE seen_messages (message_id TEXT PRIMARY KEY)",
  // The task's place in its conversation (see context-link.ts).
  `CREATE TABLE context_link (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    state TEXT NOT NULL DEFAULT 'none',
    context_seq INTEGER NOT NULL DEFAULT 0,
    conversation_upto INTEGER NOT NULL DEFAULT 0,
    released_upto INTEGER NOT NULL DEFAULT 0
  )`,
  // Which conversation turn (context seq) a row came from; null for the task's own messages.
  "ALTER TABLE conversation ADD COLUMN context_seq INTEGER",
  // The turn's tool calls while one waits for an answer (see loop/calls/suspension.ts).
  "CREATE TABLE pending_calls (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
  // Sub-agent runs this task started (see children.ts).
  `CREATE TABLE children (
    id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    transport TEXT NOT NULL,
    report_json TEXT,
    answered_version INTEGER NOT NULL DEFAULT 0,
    counted_usage_json TEXT
  )`,
  // Push notification configs and the delivery queue (src/push/).
  `CREATE TABLE push_configs (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    token TEXT,
    auth_scheme TEXT,
    auth_credentials TEXT,
    protocol TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE push_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    config_id TEXT NOT NULL,
    url TEXT NOT NULL,
    state TEXT NOT NULL,
    body TEXT NOT NULL,
    content_type TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_at INTEGER NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    first_attempt_at INTEGER,
    last_attempt_at INTEGER,
    delivered_at INTEGER
  );
  CREATE INDEX push_pending ON push_deliveries (status, config_id, seq)`,
  // Which user object counts the task's budgets (an anonymous caller's IP); null = the owner's.
  "ALTER TABLE task ADD COLUMN counters TEXT",
  // How long the task has worked, for MAX_TASK_SECONDS (see time-limit.ts).
  `ALTER TABLE task ADD COLUMN worked_ms INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE task ADD COLUMN working_since TEXT`,
  // The task has its conversation to itself, which has no object yet (see context-link.ts).
  "ALTER TABLE context_link ADD COLUMN alone INTEGER NOT NULL DEFAULT 0",
  // Each model call, written with the tokens it counted (trace/model-calls.ts).
  `CREATE TABLE model_calls (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    turn INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    model TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    stop_reason TEXT,
    error TEXT
  )`,
  // The streamed answer in rows, appended as it streams (answer-text.ts); the loop row's
  // answer_text and turn_text are no longer written.
  "CREATE TABLE answer_chunks (seq INTEGER PRIMARY KEY, committed INTEGER NOT NULL, text TEXT NOT NULL)",
  // Long JSON values of history, artifacts, the status and events, in pieces (long-values.ts);
  // later also conversation rows, child reports, pending calls and push bodies.
  LONG_VALUES_TABLE,
  // The bodies of the task's latest model requests, as sent (trace/model-requests.ts).
  `CREATE TABLE model_requests (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    turn INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    at INTEGER NOT NULL,
    body TEXT NOT NULL
  )`,
  // The journal of the turn's tool calls: each call as it starts and its result as it ends
  // (tool-journal.ts), so a restart never runs a finished call again.
  `CREATE TABLE tool_journal (
    call_id TEXT PRIMARY KEY,
    turn INTEGER NOT NULL,
    name TEXT NOT NULL,
    runs INTEGER NOT NULL,
    result_json TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER
  )`,
  // The current turn's failed model calls by kind of fault (loop/loop-state.ts `faults`).
  "ALTER TABLE loop ADD COLUMN faults_json TEXT NOT NULL DEFAULT '{}'",
  // Small rows keyed by text, written on every task's path: one row written per insert, not two.
  withoutRowid("hook_state"),
  withoutRowid("schedule"),
  // Keyed by text too, and few: the task's one row, its handful of artifacts. A large row spills
  // to overflow pages sooner than in a rowid table (less of it is kept in its page); rows written,
  // what is billed, drop by the key's index entry.
  withoutRowid("task"),
  withoutRowid("artifacts"),
  // The schedule is read whole into memory (store/scheduler.ts): its due-time index was never
  // read, and cost a row written with every entry.
  "DROP INDEX schedule_due",
  // A unit of work's events in one row, `seq` to `last` (event-log.ts); null: one event.
  "ALTER TABLE events ADD COLUMN last INTEGER",
  // The answer rows up to this number are the committed turns' (answer-text.ts): a turn's end
  // marks its text in the loop row it writes anyway, not in each of its rows.
  "ALTER TABLE loop ADD COLUMN answer_upto INTEGER NOT NULL DEFAULT 0",
];

/** The task object's schema on `sql`: migrated if the database holds it, else left absent. */
export function taskSchema(sql: SqlStorage): Schema {
  return Schema.open(sql, TASK_MIGRATIONS);
}
