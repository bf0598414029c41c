/**
 * Erasing tasks and conversations everywhere they live: each task object (its storage and its R2
 * objects), the sub-agent tasks it started, its conversation's object, and the D1 index rows.
 * Used by session deletion, privacy erasure and retention. At most 6 objects at a time.
 */
import { contextKey } from "../context/join.ts";
import { stubByName } from "../platform/object-stub.ts";
import { deleteTaskRows } from "../store/task-queries.ts";

const PARALLEL = 6;

async function inBatches<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL)
    await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}

/** Erases tasks (and their index rows); `owner` null erases whoever owns them. */
export async function eraseTasks(env: Env, owner: string | null, ids: string[]): Promise<void> {
  await inBatches(ids, (id) => stubByName(env.TASKS, id).erase({ owner }));
  await deleteTaskRows(env.DB, ids);
}

/** Erases conversation objects. */
export async function eraseContexts(
  env: Env,
  contexts: Array<{ owner: string; agent: string; contextId: string }>,
): Promise<void> {
  await inBatches(contexts, (c) =>
    stubByName(env.CONTEXTS, contextKey(c.owner, c.agent, c.contextId)).erase(),
  );
}
