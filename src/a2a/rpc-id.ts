/**
 * The id of a JSON-RPC request, read as early as the edge may read the body, so that every error
 * answers with the request's id (JSON-RPC 2.0 §5: null only when the id cannot be read).
 * Contract: `requestIdOf` is pure; `rememberRpcId` runs after authentication and the body limit
 * on the JSON-RPC routes, reads the (size-limited, cached) body once and keeps a readable id in
 * the context's `rpcId`, where the Worker's error path (platform/http-error.ts) finds it: an
 * unknown or broken agent, a refused rate or access answer with it. Before authentication the
 * body is not read, and the id is null.
 */
import type { MiddlewareHandler } from "hono";
import { bodyText } from "../platform/json-body.ts";
import type { AppEnv } from "../protocol/app-types.ts";

/** A JSON-RPC id: a string or an integer (null is no id to echo). */
export type RpcId = string | number;

/** The id of a parsed request object, when it has a valid one. */
export function idOf(request: unknown): RpcId | null {
  if (typeof request !== "object" || request === null || Array.isArray(request)) return null;
  const id = (request as { id?: unknown }).id;
  if (typeof id === "string") return id;
  return typeof id === "number" && Number.isInteger(id) ? id : null;
}

/** The id of a request body, or null when the body is not JSON or has no valid id. */
export function requestIdOf(body: string): RpcId | null {
  try {
    return idOf(JSON.parse(body));
  } catch {
    return null;
  }
}

/** Middleware: keeps the request's id in `rpcId` for the error path. */
export function rememberRpcId(): MiddlewareHandler<AppEnv> {
  return async function rpcId(c, next) {
    const id = requestIdOf(await bodyText(c.req));
    if (id !== null) c.set("rpcId", id);
    await next();
  };
}
