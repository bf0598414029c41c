/**
 * Task records beside the A2A methods, for the task's owner and admins (anyone else: "not found";
 * an anonymous caller reaches an anonymous conversation's task by its id, see auth/anonymous.ts):
 *   GET /api/tasks/:id/push     push notification configs (secrets masked) and every delivery
 *                               (state reported, status, attempts, last HTTP status and error, times)
 *   GET /api/tasks/:id/events   the event log with each event's time (the console's inspector)
 */
import { Hono } from "hono";
import { authenticate } from "../auth/middleware.ts";
import { HttpError } from "../platform/http-error.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import type { PushAnswer } from "../push/push-calls.ts";
import type { TaskResult } from "../task/rpc-types.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The task record routes. */
export function taskRecordRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/tasks/:id/events", authenticate(), async (c) => {
    const principal = c.get("principal");
    const taskId = c.req.param("id");
    const result = (await stubByName(c.env.TASKS, taskId).timeline({
      owner: principal.role === "admin" ? null : c.get("owner"),
    })) as TaskResult<Array<{ seq: number; kind: string; at: number; event: unknown }>>;
    if (!result.ok) throw new HttpError(404, `task ${taskId} not found`);
    const start = result.value[0]?.at ?? 0;
    return c.json({
      taskId,
      events: result.value.map((e) => ({
        seq: e.seq,
        kind: e.kind,
        at: new Date(e.at).toISOString(),
        sinceStartMs: e.at - start,
        event: e.event,
      })),
    });
  });
  app.get("/api/tasks/:id/push", authenticate(), async (c) => {
    const principal = c.get("principal");
    const taskId = c.req.param("id");
    const result = (await stubByName(c.env.TASKS, taskId).push({
      op: "deliveries",
      owner: principal.role === "admin" ? null : c.get("owner"),
    })) as TaskResult<PushAnswer>;
    if (!result.ok) throw new HttpError(404, `task ${taskId} not found`);
    return c.json({
      taskId,
      configs: result.value.configs.map((config) => ({
        id: config.id,
        url: config.url,
        protocol: config.protocol,
        token: config.token === null ? null : "(set)",
        authentication: config.authScheme === null ? null : { scheme: config.authScheme },
        createdAt: config.createdAt,
      })),
      deliveries: (result.value.deliveries ?? []).map((d) => ({
        seq: d.seq,
        configId: d.configId,
        state: d.state,
        status: d.status,
        attempts: d.attempts,
        lastStatus: d.lastStatus,
        lastError: d.lastError,
        queuedAt: iso(d.createdAt),
        firstAttemptAt: iso(d.firstAttemptAt),
        lastAttemptAt: iso(d.lastAttemptAt),
        deliveredAt: iso(d.deliveredAt),
        nextAttemptAt: d.status === "pending" ? iso(d.nextAt) : null,
      })),
    });
  });
  return app;
}
