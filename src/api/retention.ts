/**
 * The retention sweep (cron): with RETENTION_DAYS set, index rows of tasks that ended longer ago
 * are deleted (the task objects erase themselves from their own alarms), and so are the
 * conversations left without any task. At most 500 rows a run; the next run continues.
 */

import { loadConfig } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { contextHasTasks, deleteTaskRows, endedBefore } from "../store/task-queries.ts";
import { TERMINAL_STATES } from "../task/state-machine.ts";
import { eraseContexts } from "./erase.ts";

/** The cron expression of the daily sweep (wrangler.toml [triggers]). */
export const RETENTION_CRON = "23 3 * * *";

const BATCH = 500;

/** One sweep; returns how many index rows it deleted. */
export async function sweepExpired(env: Env, now = Date.now()): Promise<number> {
  const days = loadConfig(env).retentionDays;
  if (days === 0) return 0;
  const cutoff = new Date(now - days * 86_400_000).toISOString();
  const results = await endedBefore(env.DB, cutoff, [...TERMINAL_STATES], BATCH);
  if (results.length === 0) return 0;
  await deleteTaskRows(
    env.DB,
    results.map((r) => r.id),
  );
  const contexts = [
    ...new Map(results.map((r) => [`${r.owner} ${r.agent} ${r.contextId}`, r])).values(),
  ];
  const empty = [];
  for (const c of contexts) {
    const context = { owner: c.owner, agent: c.agent, contextId: c.contextId };
    if (!(await contextHasTasks(env.DB, context))) empty.push(context);
  }
  await eraseContexts(env, empty);
  log("info", "retention sweep", { rows: results.length, contexts: empty.length, cutoff });
  return results.length;
}
