/**
 * What the model sees, for the task's owner and admins (anyone else: "not found", as the other
 * /api/tasks routes):
 *   GET /api/tasks/:id/prompt        the task's latest model requests (at most MODEL_REQUESTS_KEPT),
 *                                    oldest first: which call (turn or compaction, turn, attempt),
 *                                    when, and `body`, the request text exactly as the Messages
 *                                    API received it (system prompt, tools, messages: the
 *                                    environment note is the first user message's opening block)
 *   GET /api/tasks/:id/prompt/:seq   one of them, its body alone, byte for byte (application/json)
 * No API key and no header is ever in a body: they travel in the request's headers, never kept.
 */
import { type Context, Hono } from "hono";
import { authenticate } from "../auth/middleware.ts";
import { HttpError } from "../platform/http-error.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import type { TaskResult } from "../task/rpc-types.ts";
import { MODEL_REQUESTS_KEPT, type StoredModelRequest } from "../trace/model-requests.ts";

/** The prompt routes. */
export function promptRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/tasks/:id/prompt", authenticate(), async (c) => {
    const taskId = c.req.param("id");
    const requests = await keptRequests(c.env, taskId, ownerFilter(c));
    return c.json({
      taskId,
      kept: MODEL_REQUESTS_KEPT,
      requests: requests.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
    });
  });
  app.get("/api/tasks/:id/prompt/:seq{[0-9]+}", authenticate(), async (c) => {
    const taskId = c.req.param("id");
    const seq = Number(c.req.param("seq"));
    const requests = await keptRequests(c.env, taskId, ownerFilter(c));
    const request = requests.find((r) => r.seq === seq);
    if (!request) throw new HttpError(404, `task ${taskId} keeps no model request ${seq}`);
    return c.body(request.body, 200, { "content-type": "application/json; charset=utf-8" });
  });
  return app;
}

/** Whose task the caller may read: its own (`owner`), or any (`null`, an admin). */
const ownerFilter = (c: Context<AppEnv>): string | null =>
  c.get("principal").role === "admin" ? null : c.get("owner");

/** The task's kept requests, or "not found" for a task the caller may not read. */
async function keptRequests(
  env: Env,
  taskId: string,
  owner: string | null,
): Promise<StoredModelRequest[]> {
  const result = (await stubByName(env.TASKS, taskId).modelRequests({ owner })) as TaskResult<
    StoredModelRequest[]
  >;
  if (!result.ok) throw new HttpError(404, `task ${taskId} not found`);
  return result.value;
}
