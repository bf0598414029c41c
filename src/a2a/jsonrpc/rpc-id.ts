/**
 * The id of a JSON-RPC request, so that every error answers with the request's id (JSON-RPC 2.0
 * §5: null only when the id cannot be read). The edge's one read of the body (rpc-call.ts) takes
 * it first, before any check can fail, and keeps it in `c.var.rpcCall`, where the Worker's error
 * path (platform/http-error.ts) finds it: an unknown or broken agent, a bad version or media
 * type, a refused rate or access answer with it. Before authentication the body is not read, and
 * the id is null. Pure.
 */
import { isJsonObject } from "../../protocol/json-shape.ts";

/** A JSON-RPC id: a string or an integer (null is no id to echo). */
export type RpcId = string | number;

/** The id of a parsed request object, when it has a valid one. */
export function idOf(request: unknown): RpcId | null {
  if (!isJsonObject(request)) return null;
  const { id } = request;
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
