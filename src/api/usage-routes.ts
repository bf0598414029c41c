/**
 * `GET /api/usage` (the caller's; admins may add `?user=<id>`): token counts, cache reads and
 * writes, model calls and an estimated cost, today, this month and in all, by agent, from the D1
 * task index; plus the budget counters the user object keeps and the budgets that apply.
 */
import { Hono } from "hono";
import { currentAgents } from "../agents/overrides.ts";
import { authenticate, requireAccount } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { budgetsFor, userObject } from "../users/limits.ts";
import { estimateCost } from "../users/pricing.ts";
import { apiError } from "./errors.ts";

interface Row {
  agent: string;
  tasks: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
}

async function totals(db: D1Database, owner: string, since: string | null) {
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
    .all<Row>();
  const byAgent = results.map((r) => ({
    ...r,
    estimatedCostUsd: estimateCost(currentAgents().get(r.agent)?.model ?? "", r),
  }));
  const sum = (key: keyof Row) => byAgent.reduce((n, r) => n + Number(r[key] ?? 0), 0);
  return {
    tasks: sum("tasks"),
    inputTokens: sum("inputTokens"),
    outputTokens: sum("outputTokens"),
    cacheReadTokens: sum("cacheReadTokens"),
    cacheWriteTokens: sum("cacheWriteTokens"),
    modelCalls: sum("modelCalls"),
    estimatedCostUsd:
      Math.round(byAgent.reduce((n, r) => n + r.estimatedCostUsd, 0) * 1_000_000) / 1_000_000,
    byAgent,
  };
}

/** The usage routes. */
export function usageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/usage", authenticate(), requireAccount(), async (c) => {
    const principal = c.get("principal");
    const user = c.req.query("user") ?? principal.id;
    if (user !== principal.id && principal.role !== "admin")
      return apiError(c, 403, "only admins may read another user's usage");
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const month = now.toISOString().slice(0, 7);
    // Sub-agent tasks count into their root task's usage, so only root tasks are summed.
    const [today, thisMonth, allTime, counters, budgets] = await Promise.all([
      totals(c.env.DB, user, `${day}T00:00:00.000Z`),
      totals(c.env.DB, user, `${month}-01T00:00:00.000Z`),
      totals(c.env.DB, user, null),
      userObject(c.env, `user:${user}`).usage(),
      budgetsFor(c.env, loadConfig(c.env), user),
    ]);
    return c.json({
      user,
      budgets,
      spent: {
        day: counters.day,
        dayTokens: counters.dayTokens,
        month: counters.month,
        monthTokens: counters.monthTokens,
      },
      today,
      thisMonth,
      allTime,
    });
  });
  return app;
}
