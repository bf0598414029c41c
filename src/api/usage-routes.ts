/**
 * `GET /api/me`: who the caller is (`user`, `role`, `via`; anonymous callers get `"anonymous"`,
 * which keys nothing on the server). `GET /api/usage` (the caller's; admins may add `?user=<id>`): token counts, cache reads and
 * writes, model calls and an estimated cost, today, this month and in all, by agent, from the D1
 * task index; plus the budget counters the user object keeps and the budgets that apply.
 */
import { Hono } from "hono";
import { authenticate, requireAccount } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { estimateCost } from "../model/pricing.ts";
import { HttpError } from "../platform/http-error.ts";
import { userCounters } from "../platform/object-names.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { type UsageRow, usageByAgent } from "../store/task-queries.ts";
import { agentModel } from "../trace/cost.ts";
import { budgetsFor, userObject } from "../users/limits.ts";

async function totals(db: D1Database, owner: string, since: string | null, defaultModel: string) {
  const rows = await usageByAgent(db, owner, since);
  const byAgent = rows.map((r) => ({
    ...r,
    estimatedCostUsd: estimateCost(agentModel(r.agent, defaultModel), r),
  }));
  const sum = (key: keyof UsageRow) => byAgent.reduce((n, r) => n + Number(r[key] ?? 0), 0);
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

/** The caller and usage routes. */
export function usageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/me", authenticate(), (c) => {
    const { id, role, via } = c.get("principal");
    return c.json({ user: id, role, via });
  });
  app.get("/api/usage", authenticate(), requireAccount(), async (c) => {
    const principal = c.get("principal");
    const user = c.req.query("user") ?? principal.id;
    if (user !== principal.id && principal.role !== "admin")
      throw new HttpError(403, "only admins may read another user's usage");
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const month = now.toISOString().slice(0, 7);
    const config = loadConfig(c.env);
    const [today, thisMonth, allTime, counters, budgets] = await Promise.all([
      totals(c.env.DB, user, `${day}T00:00:00.000Z`, config.defaultModel),
      totals(c.env.DB, user, `${month}-01T00:00:00.000Z`, config.defaultModel),
      totals(c.env.DB, user, null, config.defaultModel),
      userObject(c.env, userCounters(user)).usage(),
      budgetsFor(c.env, config, user),
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
