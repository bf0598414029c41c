/**
 * Erasing tasks and conversations everywhere they live: each task object (its storage and its R2
 * objects), the sub-agent tasks it started, its conversation's object, and the D1 index rows.
 * Used by session deletion, privacy erasure and retention. At most 6 objects at a time.
 */
import type { ContextObject } from "../context/context-object.ts";
import { contextKey } from "../context/join.ts";
import type { TaskObject } from "../task/task-object.ts";

const PARALLEL = 6;

async function inBatches<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL)
    await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}

/** The ids of `roots` and every task they started, from the index. */
export async function withDescendants(db: D1Database, roots: string[]): Promise<string[]> {
  const all = new Set(roots);
  let frontier = roots;
  while (frontier.length > 0) {
    const placeholders = frontier.map(() => "?").join(", ");
    const { results } = await db
      .prepare(`SELECT id FROM tasks WHERE parent_task_id IN (${placeholders})`)
      .bind(...frontier)
      .all<{ id: string }>();
    frontier = results.map((r) => r.id).filter((id) => !all.has(id));
    for (const id of frontier) all.add(id);
  }
  return [...all];
}

/** Erases tasks (and their index rows); `owner` null erases whoever owns them. */
export async function eraseTasks(env: Env, owner: string | null, ids: string[]): Promise<void> {
  const tasks = env.TASKS as unknown as DurableObjectNamespace<TaskObject>;
  await inBatches(ids, (id) => tasks.get(tasks.idFromName(id)).erase({ owner }));
  for (let i = 0; i < ids.length; i += 50) {
    const batch = ids.slice(i, i + 50);
    await env.DB.prepare(`DELETE FROM tasks WHERE id IN (${batch.map(() => "?").join(", ")})`)
      .bind(...batch)
      .run();
  }
}

/** Erases conversation objects. */
export async function eraseContexts(
  env: Env,
  contexts: Array<{ owner: string; agent: string; contextId: string }>,
): Promise<void> {
  const ns = env.CONTEXTS as unknown as DurableObjectNamespace<ContextObject>;
  await inBatches(contexts, (c) =>
    ns.get(ns.idFromName(contextKey(c.owner, c.agent, c.contextId))).erase(),
  );
}
