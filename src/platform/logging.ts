/**
 * Structured JSON logs: one line per request (method, path, status, duration, agent, the JSON-RPC,
 * HTTP+JSON, MCP or AG-UI method, trace id) and a helper for other events. Never logs bodies,
 * keys or tokens.
 */
import type { MiddlewareHandler } from "hono";
import type { LogVariables } from "../protocol/app-types.ts";
import { newTraceId } from "./ids.ts";
import { receivedTrace } from "./trace-context.ts";

/**
 * Writes one structured log line at its level (console.info for info: `wrangler dev` shows it at
 * `--log-level info`, Workers Logs files it as info).
 */
export function log(
  level: "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  const line = JSON.stringify({ level, msg, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
}

/** An error as log fields: its message, its cause chain and the top of its stack. */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const causes: string[] = [];
  for (let cause = error.cause, depth = 0; cause !== undefined && depth < 5; depth++) {
    causes.push(String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return {
    error: String(error),
    ...(causes.length > 0 ? { cause: causes.join(" <- ") } : {}),
    ...(error.stack ? { stack: error.stack.split("\n").slice(0, 6).join("\n") } : {}),
  };
}

/**
 * Middleware: assigns a request id and a trace id (from a valid W3C `traceparent` header, whose
 * span becomes the parent of the tasks the request starts, else a new one) and logs the request
 * when it is answered.
 */
export function requestLogger(): MiddlewareHandler<{ Variables: LogVariables }> {
  return async function logRequest(c, next) {
    const started = Date.now();
    c.set("requestId", crypto.randomUUID());
    const received = receivedTrace({ get: (name) => c.req.header(name) });
    c.set("traceId", received?.traceId ?? newTraceId());
    if (received) c.set("traceParent", received);
    await next();
    const call = c.get("rpcCall") ?? c.get("restCall") ?? c.get("faceCall");
    const rpcMethod = call?.method;
    log(c.res.status >= 500 ? "error" : "info", "request", {
      requestId: c.get("requestId"),
      traceId: c.get("traceId"),
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      ms: Date.now() - started,
      ...(c.get("agent") ? { agent: c.get("agent") } : {}),
      ...(rpcMethod ? { rpcMethod } : {}),
      ...(c.get("delegatedBy") ? { delegatedBy: c.get("delegatedBy") } : {}),
      ...(c.get("userId") ? { userId: c.get("userId") } : {}),
      ...(c.get("taskId") ? { taskId: c.get("taskId") } : {}),
    });
  };
}
