/**
 * `GET /api/schedules`: the caller's scheduled runs (admins: every schedule): cron, time zone,
 * agent, the next run, and the last runs with their tasks' states (from the D1 task index).
 */
import { Hono } from "hono";
import { authenticate, requireAccount } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { cronOf } from "./schedules.ts";
import { schedules } from "./trigger-config.ts";

const LAST_RUNS = 5;

interface RunRow {
  tick: string;
  task_id: string | null;
  started_at: string;
  error: string | null;
  state: string | null;
}

/** The schedules route. */
export function scheduleRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/schedules", authenticate(), requireAccount(), async (c) => {
    const principal = c.get("principal");
    const zone = loadConfig(c.env).timeZone;
    const mine = Object.values(schedules(c.env)).filter(
      (s) => principal.role === "admin" || s.owner === principal.id,
    );
    const out = await Promise.all(
      mine.map(async (s) => {
        const { results } = await c.env.DB.prepare(
          `SELECT r.tick, r.task_id, r.started_at, r.error, t.state
           FROM schedule_runs r LEFT JOIN tasks t ON t.id = r.task_id
           WHERE r.schedule = ? ORDER BY r.tick DESC LIMIT ?`,
        )
          .bind(s.name, LAST_RUNS)
          .all<RunRow>();
        return {
          name: s.name,
          cron: s.cron,
          timeZone: s.timeZone ?? zone,
          agent: s.agent,
          owner: s.owner,
          pushUrl: s.push?.url ?? null,
          nextRun: cronOf(s, zone).nextRun()?.toISOString() ?? null,
          lastRuns: results.map((r) => ({
            tick: r.tick,
            taskId: r.task_id,
            startedAt: r.started_at,
            state: r.state ?? (r.error ? "not started" : "unknown"),
            ...(r.error ? { error: r.error } : {}),
          })),
        };
      }),
    );
    return c.json({ schedules: out });
  });
  return app;
}
