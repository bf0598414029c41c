/**
 * The task index in D1 (migrations/0001): one row per task, written by the task's object on
 * state changes. Upserts carry a per-task version and never overwrite a newer row, so retried or
 * reordered writes are harmless.
 */

/** One index row. */
export interface TaskIndexRow {
  id: string;
  agent: string;
  contextId: string;
  owner: string;
  state: string;
  parentTaskId: string | null;
  /** The agent of the root task (the task's own agent unless it is a sub-agent's task). */
  rootAgent: string;
  traceId: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
}

/** The columns of a row, named as {@link TaskIndexRow}'s fields. */
const ROW_COLUMNS = `id, agent, context_id AS contextId, owner, state, parent_task_id AS parentTaskId,
  root_agent AS rootAgent, trace_id AS traceId, created_at AS createdAt, updated_at AS updatedAt, version,
  input_tokens AS inputTokens, output_tokens AS outputTokens, cache_read_tokens AS cacheReadTokens,
  cache_write_tokens AS cacheWriteTokens, model_calls AS modelCalls`;

/** Inserts or updates a task's row unless the stored row is newer. */
export async function upsertTaskIndex(db: D1Database, row: TaskIndexRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO tasks (id, agent, context_id, owner, state, parent_task_id, trace_id, created_at,
         updated_at, version, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, model_calls,
         root_agent)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at,
         version = excluded.version, input_tokens = excluded.input_tokens,
         output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
         cache_write_tokens = excluded.cache_write_tokens, model_calls = excluded.model_calls
       WHERE excluded.version > tasks.version`,
    )
    .bind(
      row.id,
      row.agent,
      row.contextId,
      row.owner,
      row.state,
      row.parentTaskId,
      row.traceId,
      row.createdAt,
      row.updatedAt,
      row.version,
      row.inputTokens,
      row.outputTokens,
      row.cacheReadTokens,
      row.cacheWriteTokens,
      row.modelCalls,
      row.rootAgent,
    )
    .run();
}

/** Reads one task's row (tests, ListTasks later). */
export async function getTaskIndex(db: D1Database, id: string): Promise<TaskIndexRow | null> {
  const row = await db
    .prepare(
      `SELECT ${ROW_COLUMNS}
       FROM tasks WHERE id = ?1`,
    )
    .bind(id)
    .first<TaskIndexRow>();
  return row ?? null;
}

/** Filters and page of {@link listTaskIndex}. */
export interface TaskIndexQuery {
  owner: string;
  agent: string;
  contextId?: string;
  state?: string;
  /** Only tasks whose status changed after this ISO timestamp. */
  updatedAfter?: string;
  /** Resume after this (updatedAt, id), exclusive. */
  after?: { updatedAt: string; id: string };
  limit: number;
}

/** One page of the caller's tasks, newest status first, and the count of all that match. */
export async function listTaskIndex(
  db: D1Database,
  query: TaskIndexQuery,
): Promise<{ rows: TaskIndexRow[]; total: number }> {
  // An agent's list holds its own tasks and the sub-agent tasks they started.
  const where = ["owner = ?", "root_agent = ?"];
  const args: unknown[] = [query.owner, query.agent];
  if (query.contextId !== undefined) {
    where.push("context_id = ?");
    args.push(query.contextId);
  }
  if (query.state !== undefined) {
    where.push("state = ?");
    args.push(query.state);
  }
  if (query.updatedAfter !== undefined) {
    where.push("updated_at > ?");
    args.push(query.updatedAfter);
  }
  const filter = where.join(" AND ");
  const page = query.after ? `${filter} AND (updated_at, id) < (?, ?)` : filter;
  const pageArgs = query.after ? [...args, query.after.updatedAt, query.after.id] : args;
  const [rows, count] = await db.batch([
    db
      .prepare(
        `SELECT ${ROW_COLUMNS}
         FROM tasks WHERE ${page} ORDER BY updated_at DESC, id DESC LIMIT ?`,
      )
      .bind(...pageArgs, query.limit),
    db.prepare(`SELECT COUNT(*) AS total FROM tasks WHERE ${filter}`).bind(...args),
  ]);
  return {
    rows: (rows?.results ?? []) as TaskIndexRow[],
    total: Number((count?.results?.[0] as { total?: number } | undefined)?.total ?? 0),
  };
}
