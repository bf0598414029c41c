-- Task index: one row per task, written by the task's Durable Object on state changes only.
-- The Durable Object is the source of truth; this table answers ListTasks, usage and retention.
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  context_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  state TEXT NOT NULL,
  parent_task_id TEXT,
  trace_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- Monotonic per task; an upsert carrying an older version is ignored (retries may arrive late).
  version INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  model_calls INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX tasks_by_owner ON tasks (owner, agent, updated_at DESC, id DESC);
CREATE INDEX tasks_by_context ON tasks (context_id, updated_at DESC, id DESC);
