/**
 * The retention sweep (cron): index rows of tasks that ended longer ago than their retention
 * (RETENTION_DAYS; for an anonymous conversation's tasks the lower of it and
 * ANONYMOUS_RETENTION_DAYS) are deleted (the task objects erase themselves from their own
 * alarms), and so are the conversations left without any task, with their scratchpads; an
 * anonymous conversation left without tasks takes its workspace, memory and R2 objects with it.
 * At most 500 rows a pass; the next run continues.
 */

import { isAnonymousOwner } from "../auth/anonymous.ts";
import { loadConfig, retentionDaysFor } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { TERMINAL_STATES } from "../protocol/task-states.ts";
import { contextHasTasks, deleteTaskRows, endedBefore } from "../store/task-queries.ts";
import { type ConversationRef, eraseContexts } from "./erase.ts";

/** The cron expression of the daily sweep (wrangler.toml [triggers]). */
export const RETENTION_CRON = "23 3 * * *";

const BATCH = 500;

/** One sweep; returns how many index rows it deleted. */
export async function sweepExpired(env: Env, now = Date.now()): Promise<number> {
  const config = loadConfig(env);
  const all = retentionDaysFor(config, false);
  const anonymous = retentionDaysFor(config, true);
  let rows = 0;
  if (all > 0) rows += await sweep(env, now - all * 86_400_000, "all");
  if (anonymous > 0 && (all === 0 || anonymous < all))
    rows += await sweep(env, now - anonymous * 86_400_000, "anonymous");
  return rows;
}

/** One pass over the tasks of `owners` that ended before `before` (ms). */
async function sweep(env: Env, before: number, owners: "all" | "anonymous"): Promise<number> {
  const cutoff = new Date(before).toISOString();
  const results = await endedBefore(env.DB, cutoff, [...TERMINAL_STATES], BATCH, owners);
  if (results.length === 0) return 0;
  await deleteTaskRows(
    env.DB,
    results.map((r) => r.id),
  );
  const contexts = [
    ...new Map(results.map((r) => [`${r.owner} ${r.agent} ${r.contextId}`, r])).values(),
  ];
  const empty: ConversationRef[] = [];
  for (const c of contexts) {
    const context = { owner: c.owner, agent: c.agent, contextId: c.contextId };
    if (!(await contextHasTasks(env.DB, context))) empty.push(context);
  }
  await eraseContexts(env, empty);
  log("info", "retention sweep", {
    rows: results.length,
    contexts: empty.length,
    anonymous: empty.filter((c) => isAnonymousOwner(c.owner)).length,
    cutoff,
  });
  return results.length;
}
