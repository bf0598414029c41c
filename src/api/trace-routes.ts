/**
 * `GET /api/tasks/:id/trace`: the task's trace as OTLP/JSON (an ExportTraceServiceRequest), with
 * the spans of the sub-agent tasks it ran on this Worker, under the configured resource
 * (`service.name`, `OTEL_RESOURCE_ATTRIBUTES`), for the task's owner and admins (anyone
 * else: "not found", as the other /api/tasks routes). Built from the tasks' own records, so it
 * works without a collector; what a remote agent did is in its own deployment's trace.
 */
import { Hono } from "hono";
import { authenticate } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { HttpError } from "../platform/http-error.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import type { TaskResult } from "../task/rpc-types.ts";
import type { TaskTraceAnswer } from "../task/task-spans.ts";
import { otlpJson } from "../trace/otlp.ts";
import type { TraceSpan } from "../trace/span-types.ts";

/** The most tasks one trace answer gathers (the task and its sub-agents). */
export const MAX_TRACE_TASKS = 50;

/** The trace routes. */
export function traceRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/tasks/:id/trace", authenticate(), async (c) => {
    const principal = c.get("principal");
    const owner = principal.role === "admin" ? null : c.get("owner");
    const taskId = c.req.param("id");
    const spans: TraceSpan[] = [];
    const queue = [taskId];
    const seen = new Set<string>();
    for (
      let id = queue.shift();
      id !== undefined && seen.size < MAX_TRACE_TASKS;
      id = queue.shift()
    ) {
      if (seen.has(id)) continue;
      seen.add(id);
      const result = (await stubByName(c.env.TASKS, id).traceSpans({
        owner,
      })) as TaskResult<TaskTraceAnswer>;
      if (!result.ok) {
        if (id === taskId) throw new HttpError(404, `task ${taskId} not found`);
        continue; // a sub-agent task erased meanwhile
      }
      spans.push(...result.value.spans);
      queue.push(...result.value.localChildren);
    }
    const { resource } = loadConfig(c.env).trace;
    return c.json(otlpJson(spans, resource) as Record<string, unknown>);
  });
  return app;
}
