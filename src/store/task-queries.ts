/**
 * Queries on the D1 task index (migrations/0001) beyond one row (d1-index.ts): a caller's
 * sessions and their root tasks, a user's tasks (all, or those not ended), usage sums, the
 * sub-agent tasks a task started, the ended tasks retention removes (with how many rows their
 * conversations have), and deleting rows. Every function takes the D1 handle and
 * binds every value (no caller text reaches the SQL); none of them touches a task object.
 */

import { ANONYMOUS_OWNER_PREFIX } from "../auth/anonymous.ts";

/** At most this many ids go into one `IN (...)` list. */
const IN_LIST = 50;
const placeholders = (values: readonly unknown[]) => values.map(() => "?").join(", ");

/** One session (conversation) of a caller: a context with its root agent. */
export interface SessionRow {
  contextId: string;
  agent: string;
  tasks: number;
  startedAt: string;
  updatedAt: string;
  /** Token usage of its root tasks (each counts its sub-agents'). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
}

/** The caller's sessions, most recent first (optionally one root agent's). */
export async function listSessions(
  db: D1Database,
  owner: string,
  agent: string | null,
  limit: number,
): Promise<SessionRow[]> {
  const { results } = await db
    .prepare(
      `SELECT context_id AS contextId, root_agent AS agent, COUNT(*) AS tasks,
         MIN(created_at) AS startedAt, MAX(updated_at) AS updatedAt,
         COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens,
         COALESCE(SUM(cache_read_tokens), 0) AS cacheReadTokens,
         COALESCE(SUM(cache_write_tokens), 0) AS cacheWriteTokens,
         COALESCE(SUM(model_calls), 0) AS modelCalls
       FROM tasks WHERE owner = ?1 AND parent_task_id IS NULL AND (?2 IS NULL OR root_agent = ?2)
       GROUP BY context_id, root_agent ORDER BY updatedAt DESC LIMIT ?3`,
    )
    .bind(owner, agent, limit)
    .all<SessionRow>();
  return results;
}

/** The root tasks of one of the caller's sessions, oldest first. */
export async function sessionTasks(db: D1Database, owner: string, contextId: string) {
  const { results } = await db
    .prepare(
      `SELECT id, agent, state, created_at AS createdAt, updated_at AS updatedAt FROM tasks
       WHERE owner = ? AND context_id = ? AND parent_task_id IS NULL ORDER BY created_at, id`,
    )
    .bind(owner, contextId)
    .all<{ id: string; agent: string; state: string; createdAt: string; updatedAt: string }>();
  return results;
}

/** Every task of a user (sub-agent tasks included), oldest first. */
export async function userTasks(db: D1Database, owner: string) {
  const { results } = await db
    .prepare(
      `SELECT id, agent, context_id AS contextId, parent_task_id AS parentTaskId
       FROM tasks WHERE owner = ? ORDER BY created_at, id`,
    )
    .bind(owner)
    .all<{ id: string; agent: string; contextId: string; parentTaskId: string | null }>();
  return results;
}

/**
 * At most `limit` of a user's tasks whose index row is in none of `ended`, root tasks first (so
 * each can stop the sub-agent tasks it started before they are reached on their own).
 */
export async function tasksNotIn(
  db: D1Database,
  owner: string,
  ended: readonly string[],
  limit: number,
): Promise<Array<{ id: string; parentTaskId: string | null }>> {
  const { results } = await db
    .prepare(
      `SELECT id, parent_task_id AS parentTaskId FROM tasks
       WHERE owner = ? AND state NOT IN (${placeholders(ended)})
       ORDER BY parent_task_id IS NOT NULL, created_at, id LIMIT ?`,
    )
    .bind(owner, ...ended, limit)
    .all<{ id: string; parentTaskId: string | null }>();
  return results;
}

/** Token and call sums of one agent's root tasks. */
export interface UsageRow {
  agent: string;
  tasks: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
}

/**
 * A user's usage by agent, over root tasks created since `since` (ISO; null: all time). Sub-agent
 * tasks count into their root task's usage, so they are not summed again.
 */
export async function usageByAgent(
  db: D1Database,
  owner: string,
  since: string | null,
): Promise<UsageRow[]> {
  const { results } = await db
    .prepare(
      `SELECT agent, COUNT(*) AS tasks, SUM(input_tokens) AS inputTokens,
         SUM(output_tokens) AS outputTokens, SUM(cache_read_tokens) AS cacheReadTokens,
         SUM(cache_write_tokens) AS cacheWriteTokens, SUM(model_calls) AS modelCalls
       FROM tasks WHERE owner = ?1 AND (?2 IS NULL OR created_at >= ?2)
         AND parent_task_id IS NULL
       GROUP BY agent ORDER BY agent`,
    )
    .bind(owner, since)
    .all<UsageRow>();
  return results;
}

/** The ids of `roots` and every task they started, from the index. */
export async function withDescendants(db: D1Database, roots: string[]): Promise<string[]> {
  const all = new Set(roots);
  let frontier = roots;
  while (frontier.length > 0) {
    const children: string[] = [];
    for (let i = 0; i < frontier.length; i += IN_LIST) {
      const batch = frontier.slice(i, i + IN_LIST);
      const { results } = await db
        .prepare(`SELECT id FROM tasks WHERE parent_task_id IN (${placeholders(batch)})`)
        .bind(...batch)
        .all<{ id: string }>();
      children.push(...results.map((r) => r.id));
    }
    frontier = children.filter((id) => !all.has(id));
    for (const id of frontier) all.add(id);
  }
  return [...all];
}

/** The agents of these tasks (each once). */
export async function agentsOfTasks(db: D1Database, ids: readonly string[]): Promise<string[]> {
  const agents = new Set<string>();
  for (let i = 0; i < ids.length; i += IN_LIST) {
    const batch = ids.slice(i, i + IN_LIST);
    const { results } = await db
      .prepare(`SELECT DISTINCT agent FROM tasks WHERE id IN (${placeholders(batch)})`)
      .bind(...batch)
      .all<{ agent: string }>();
    for (const row of results) agents.add(row.agent);
  }
  return [...agents];
}

/** Deletes the index rows of these tasks. */
export async function deleteTaskRows(db: D1Database, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += IN_LIST) {
    const batch = ids.slice(i, i + IN_LIST);
    await db
      .prepare(`DELETE FROM tasks WHERE id IN (${placeholders(batch)})`)
      .bind(...batch)
      .run();
  }
}

/** A task row as retention sees it. */
export interface EndedTask {
  id: string;
  owner: string;
  agent: string;
  contextId: string;
  /** How many index rows its conversation (owner, agent, contextId) has, this one included. */
  conversationRows: number;
}

/**
 * Anonymous conversations' owners as a range of `owner` (`anon-` up to, not including, `anon.`),
 * written out as it is in the partial index `tasks_by_anonymous_expiry` (migrations/0008), which
 * SQLite uses only for a query that says the same.
 */
const ANONYMOUS_OWNERS = `owner >= '${ANONYMOUS_OWNER_PREFIX}' AND owner < '${ANONYMOUS_OWNER_PREFIX.slice(0, -1)}.'`;

/**
 * At most `limit` tasks in one of `states` whose status last changed before `cutoff` (ISO), of
 * any owner or of anonymous conversations only, each with its conversation's row count. One
 * indexed query (migrations/0008: by state and `updated_at`; anonymous owners by a partial index).
 */
export async function endedBefore(
  db: D1Database,
  cutoff: string,
  states: readonly string[],
  limit: number,
  owners: "all" | "anonymous" = "all",
): Promise<EndedTask[]> {
  const { results } = await db
    .prepare(
      `SELECT id, owner, agent, context_id AS contextId,
         (SELECT COUNT(*) FROM tasks c WHERE c.context_id = t.context_id AND c.owner = t.owner
           AND c.agent = t.agent) AS conversationRows
       FROM tasks t
       WHERE state IN (${placeholders(states)}) AND updated_at < ?${owners === "anonymous" ? ` AND ${ANONYMOUS_OWNERS}` : ""}
       LIMIT ?`,
    )
    .bind(...states, cutoff, limit)
    .all<EndedTask>();
  return results;
}

/** Whether any task of this owner and agent is left in the conversation `contextId`. */
export async function contextHasTasks(
  db: D1Database,
  context: { owner: string; agent: string; contextId: string },
): Promise<boolean> {
  const left = await db
    .prepare("SELECT 1 FROM tasks WHERE owner = ? AND agent = ? AND context_id = ? LIMIT 1")
    .bind(context.owner, context.agent, context.contextId)
    .first();
  return left !== null;
}

/** Deletes a user's account rows in one batch: their tokens, their user row and their tasks. */
export async function deleteAccountRows(db: D1Database, owner: string): Promise<void> {
  await db.batch([
    db.prepare("DELETE FROM tokens WHERE user_id = ?").bind(owner),
    db.prepare("DELETE FROM users WHERE id = ?").bind(owner),
    db.prepare("DELETE FROM tasks WHERE owner = ?").bind(owner),
  ]);
}
