/**
 * Erasing data everywhere it lives. A task: its object (its storage and its R2 objects) and its
 * index rows. A conversation: its object and its scratchpad. An owner's files with an agent: the
 * workspace object (files, checkpoints, memory) and everything under the owner's R2 prefix. An
 * anonymous conversation is its own owner, so erasing it erases its files too. Used by session
 * deletion, privacy erasure and retention. At most 6 objects at a time.
 */
import { isAnonymousOwner } from "../auth/anonymous.ts";
import { contextKey } from "../conversations/join.ts";
import { stubByName } from "../platform/object-stub.ts";
import { scratchPrefix, userPrefix } from "../store/r2-keys.ts";
import { deletePrefix } from "../store/r2-prefix.ts";
import { deleteTaskRows } from "../store/task-queries.ts";
import { conversationScratchId } from "../task/store/lineage.ts";
import { workspaceKey } from "../workspace/keys.ts";

const PARALLEL = 6;

async function inBatches<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL)
    await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}

/** One conversation: whose, with which agent, which contextId. */
export interface ConversationRef {
  owner: string;
  agent: string;
  contextId: string;
}

/** Erases tasks (and their index rows); `owner` null erases whoever owns them. */
export async function eraseTasks(env: Env, owner: string | null, ids: string[]): Promise<void> {
  await inBatches(ids, (id) => stubByName(env.TASKS, id).erase({ owner }));
  await deleteTaskRows(env.DB, ids);
}

/**
 * Erases conversations: each one's object and scratchpad and, for an anonymous conversation (its
 * own owner), the owner's files with the agent ({@link eraseOwnerFiles}).
 */
export async function eraseContexts(env: Env, contexts: ConversationRef[]): Promise<void> {
  await inBatches(contexts, async (c) => {
    await stubByName(env.CONTEXTS, contextKey(c.owner, c.agent, c.contextId)).erase();
    const scratchId = await conversationScratchId(c.owner, c.agent, c.contextId);
    await deletePrefix(env.FILES, scratchPrefix(c.owner, scratchId));
    if (isAnonymousOwner(c.owner)) await eraseOwnerFiles(env, c.owner, [c.agent]);
  });
}

/**
 * Erases what `owner` keeps with each of `agents`: the workspace object (files, checkpoints,
 * PROGRESS.json and the other state files, memory) and the owner's R2 prefix with that agent
 * (file contents, memory). For an anonymous owner, its scratchpads too (all of them are its one
 * conversation's).
 */
export async function eraseOwnerFiles(env: Env, owner: string, agents: string[]): Promise<void> {
  await inBatches(agents, async (agent) => {
    await stubByName(env.WORKSPACES, workspaceKey(agent, owner)).erase();
    await deletePrefix(env.FILES, userPrefix(agent, owner));
  });
  if (isAnonymousOwner(owner)) await deletePrefix(env.FILES, scratchPrefix(owner));
}
