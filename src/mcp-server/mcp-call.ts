/**
 * An MCP request as the edge reads it, before the MCP SDK sees it: what it does to the limits, and
 * what the face refuses outright.
 *   - Limits: a tool call that sends a message (send_message, reply) counts against the message
 *     rate; one that holds its request open while a task works (send_message, reply, and get_task
 *     with `wait: true`, each up to MCP_WAIT_SECONDS) holds a stream lease, as an A2A stream does.
 *   - Refused, as JSON-RPC errors with the request's id: a batch (it would carry calls past the
 *     limits, which count one request as one call); a call of a tool the face does not have (the
 *     refusal names the tools); and a `progressToken` longer than {@link MAX_PROGRESS_TOKEN_CHARS},
 *     since every progress notification echoes it (a megabyte token would come back once per
 *     notification).
 * Pure: no I/O.
 */

import type { FaceCall } from "../protocol/app-types.ts";
import { isJsonObject } from "../protocol/json-shape.ts";

/** The longest string `progressToken` taken (a counter or a UUID fits many times over). */
export const MAX_PROGRESS_TOKEN_CHARS = 256;

type Effects = { sends: boolean; holds: boolean };

/** The face's tools (tools.ts registers them), and what a call of each does at the edge. */
const TOOL_EFFECTS: ReadonlyMap<string, (args: unknown) => Effects> = new Map<
  string,
  (args: unknown) => Effects
>([
  ["send_message", () => ({ sends: true, holds: true })],
  ["reply", () => ({ sends: true, holds: true })],
  [
    "get_task",
    (args: unknown) => ({ sends: false, holds: isJsonObject(args) && args.wait === true }),
  ],
  ["cancel_task", () => ({ sends: false, holds: false })],
  ["list_tasks", () => ({ sends: false, holds: false })],
]);

/** The names of the face's tools. */
export const MCP_TOOL_NAMES: readonly string[] = [...TOOL_EFFECTS.keys()];

/** A refusal of one request, answered as a JSON-RPC error with its HTTP status. */
export interface McpRefusal {
  status: 200 | 400;
  code: number;
  message: string;
}

/** The request's `params` as a record (empty when absent or not an object). */
const paramsOf = (body: unknown): Record<string, unknown> =>
  isJsonObject(body) && isJsonObject(body.params) ? body.params : {};

/** The JSON-RPC id of `body`, when it has a usable one. */
export function requestId(body: unknown): string | number | null {
  const id = isJsonObject(body) ? body.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/**
 * What an MCP request is (its body as JSON, undefined when it is not): the log line's
 * `mcp <method>` (with the tool's name for a tool call), and whether it sends and holds.
 */
export function describeMcpCall(body: unknown): Pick<FaceCall, "method" | "sends" | "streams"> {
  const method = isJsonObject(body) && typeof body.method === "string" ? body.method : null;
  const label = method === null ? (Array.isArray(body) ? "batch" : "?") : method.slice(0, 64);
  const tool = paramsOf(body).name;
  if (method !== "tools/call" || typeof tool !== "string")
    return { method: `mcp ${label}`, sends: false, streams: false };
  const effects = TOOL_EFFECTS.get(tool)?.(paramsOf(body).arguments);
  return {
    method: `mcp tools/call ${tool.slice(0, 64)}`,
    sends: effects?.sends ?? false,
    streams: effects?.holds ?? false,
  };
}

/** Why the face refuses the request (a parsed JSON body) before the SDK reads it, or null. */
export function mcpRefusal(body: unknown): McpRefusal | null {
  if (Array.isArray(body))
    return {
      status: 400,
      code: -32600,
      message: "Invalid Request: batches are not supported; send one JSON-RPC message per request",
    };
  const params = paramsOf(body);
  const token = isJsonObject(params._meta) ? params._meta.progressToken : undefined;
  if (typeof token === "string" && token.length > MAX_PROGRESS_TOKEN_CHARS)
    return {
      status: 200,
      code: -32602,
      message: `Invalid params: _meta.progressToken is longer than ${MAX_PROGRESS_TOKEN_CHARS} characters`,
    };
  const tool = params.name;
  if (isJsonObject(body) && body.method === "tools/call" && typeof tool === "string")
    if (!TOOL_EFFECTS.has(tool))
      return {
        status: 200,
        code: -32602,
        message: `Unknown tool: ${tool.slice(0, 64)}; the tools are ${MCP_TOOL_NAMES.join(", ")}`,
      };
  return null;
}
