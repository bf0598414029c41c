/**
 * The retention sweep (cron): index rows of tasks that ended longer ago than their retention
 * (RETENTION_DAYS; for an anonymous conversation's tasks the lower of it and
 * ANONYMOUS_RETENTION_DAYS) are deleted (the task objects erase themselves from their own
 * alarms), and so are the conversations left without any task, with their scratchpads; an
 * anonymous conversation left without tasks takes its workspace, memory and R2 objects with it.
 *
 * Within Workers Free's limits per invocation (50 D1 queries): one pass reads at most
 * {@link ROWS} rows of each kind with one indexed query (migrations/0008), erases at most
 * {@link ERASURES} conversations (each a few Durable Object calls and R2 operations) and deletes
 * its rows with one statement. It erases before it forgets: a conversation is erased only in the
 * pass that holds every row it has left, and those rows are deleted after, so a pass cut short
 * never leaves data that no index row points at. A pass that left work asks the sweep's object
 * (privacy/retention-object.ts) to run the next one, in an invocation of its own, until none is left.
 */

import { isAnonymousOwner } from "../auth/anonymous.ts";
import { loadConfig, retentionDaysFor } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { stubByName } from "../platform/object-stub.ts";
import { TERMINAL_STATES } from "../protocol/task-states.ts";
import { deleteTaskRows, type EndedTask, endedBefore } from "../store/task-queries.ts";
import { type ConversationRef, eraseContexts } from "./erase.ts";

/** The cron expression of the daily sweep (wrangler.toml [triggers]). */
export const RETENTION_CRON = "23 3 * * *";

/** Index rows one pass reads of each kind (all owners, anonymous ones): one `IN` list. */
export const ROWS = 50;

/** Conversations one pass erases. */
export const ERASURES = 5;

/** The name of the sweep's one object. */
const SWEEP_OBJECT = "sweep";

/** What one pass did, and whether expired rows are left for another. */
export interface SweepPass {
  /** Index rows deleted. */
  swept: number;
  /** Conversations erased. */
  erased: number;
  more: boolean;
}

/** One pass of the sweep at `now` (ms). */
export async function sweepExpired(env: Env, now = Date.now()): Promise<SweepPass> {
  const config = loadConfig(env);
  const all = retentionDaysFor(config, false);
  const anonymous = retentionDaysFor(config, true);
  const passes: SweepPass[] = [];
  if (all > 0) passes.push(await sweep(env, now - all * 86_400_000, "all"));
  if (anonymous > 0 && (all === 0 || anonymous < all))
    passes.push(await sweep(env, now - anonymous * 86_400_000, "anonymous"));
  return {
    swept: passes.reduce((n, p) => n + p.swept, 0),
    erased: passes.reduce((n, p) => n + p.erased, 0),
    more: passes.some((p) => p.more),
  };
}

/** One pass at `now`; when it left work, the sweep's object runs the next one soon. */
export async function sweepAndContinue(env: Env, now: number): Promise<SweepPass> {
  const pass = await sweepExpired(env, now);
  if (pass.more) await stubByName(env.RETENTION, SWEEP_OBJECT).continueSweep();
  return pass;
}

/** The rows of a pass by conversation (owner, agent, contextId). */
function byConversation(rows: readonly EndedTask[]): EndedTask[][] {
  const groups = new Map<string, EndedTask[]>();
  for (const row of rows) {
    const key = `${row.owner} ${row.agent} ${row.contextId}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()];
}

/** One pass over the tasks of `owners` that ended before `before` (ms). */
async function sweep(env: Env, before: number, owners: "all" | "anonymous"): Promise<SweepPass> {
  const cutoff = new Date(before).toISOString();
  const rows = await endedBefore(env.DB, cutoff, [...TERMINAL_STATES], ROWS, owners);
  const erase: ConversationRef[] = [];
  const ids: string[] = [];
  let deferred = false;
  for (const group of byConversation(rows)) {
    const { owner, agent, contextId, conversationRows } = group[0] as EndedTask;
    // The pass holds every row the conversation has left: erased now, or in a later pass.
    const last = conversationRows === group.length;
    if (last && erase.length >= ERASURES) {
      deferred = true;
      continue;
    }
    if (last) erase.push({ owner, agent, contextId });
    ids.push(...group.map((r) => r.id));
  }
  await eraseContexts(env, erase);
  await deleteTaskRows(env.DB, ids);
  if (ids.length > 0)
    log("info", "retention sweep", {
      rows: ids.length,
      contexts: erase.length,
      anonymous: erase.filter((c) => isAnonymousOwner(c.owner)).length,
      cutoff,
    });
  return { swept: ids.length, erased: erase.length, more: deferred || rows.length === ROWS };
}
