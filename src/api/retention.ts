/**
 * The retention sweep (cron): with RETENTION_DAYS set, index rows of tasks that ended longer ago
 * are deleted (the task objects erase themselves from their own alarms), and so are the
 * conversations left without any task. At most 500 rows a run; the next run continues.
 */

import { loadConfig } from "../config/config.ts";
import { log } from "../platform/logging.ts";
import { eraseContexts } from "./erase.ts";

/** The cron expression of the daily sweep (wrangler.toml [triggers]). */
export const RETENTION_CRON = "23 3 * * *";

const BATCH = 500;
const TERMINAL = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
];

/** One sweep; returns how many index rows it deleted. */
export async function sweepExpired(env: Env, now = Date.now()): Promise<number> {
  const days = loadConfig(env).retentionDays;
  if (days === 0) return 0;
  const cutoff = new Date(now - days * 86_400_000).toISOString();
  const { results } = await env.DB.prepare(
    `SELECT id, owner, agent, context_id AS contextId FROM tasks
     WHERE updated_at < ? AND state IN (${TERMINAL.map(() => "?").join(", ")}) LIMIT ?`,
  )
    .bind(cutoff, ...TERMINAL, BATCH)
    .all<{ id: string; owner: string; agent: string; contextId: string }>();
  if (results.length === 0) return 0;
  for (let i = 0; i < results.length; i += 50) {
    const ids = results.slice(i, i + 50).map((r) => r.id);
    await env.DB.prepare(`DELETE FROM tasks WHERE id IN (${ids.map(() => "?").join(", ")})`)
      .bind(...ids)
      .run();
  }
  const contexts = [
    ...new Map(results.map((r) => [`${r.owner} ${r.agent} ${r.contextId}`, r])).values(),
  ];
  const empty = [];
  for (const c of contexts) {
    const left = await env.DB.prepare(
      "SELECT 1 FROM tasks WHERE owner = ? AND agent = ? AND context_id = ? LIMIT 1",
    )
      .bind(c.owner, c.agent, c.contextId)
      .first();
    if (!left) empty.push({ owner: c.owner, agent: c.agent, contextId: c.contextId });
  }
  await eraseContexts(env, empty);
  log("info", "retention sweep", { rows: results.length, contexts: empty.length, cutoff });
  return results.length;
}
