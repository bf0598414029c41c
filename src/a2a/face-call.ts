/**
 * Reads the body of a request to a face other than A2A (MCP, AG-UI) once, at the edge, before the
 * rate limits, as rpc-call.ts reads a JSON-RPC one: parsed as JSON (undefined when it is not) and
 * described by the face (what the log line names, whether it sends a message, whether it holds
 * its response open). The result is the request's {@link FaceCall} (c.var.faceCall), which the
 * rate limits, the log line and the face's route read; a body that is not JSON is answered by the
 * route after its own checks (the agent), so those keep their order.
 */
import type { MiddlewareHandler } from "hono";
import { jsonBody } from "../platform/json-body.ts";
import type { AppEnv, FaceCall } from "../protocol/app-types.ts";

/** What a face makes of a request's body (undefined: not JSON). */
export type DescribeCall = (body: unknown) => Omit<FaceCall, "body">;

/** Middleware: reads the call into `c.var.faceCall` (after authentication, before limits). */
export function faceCall(describe: DescribeCall): MiddlewareHandler<AppEnv> {
  return async function readFaceCall(c, next) {
    const body = await jsonBody(c.req);
    c.set("faceCall", { body, ...describe(body) });
    await next();
  };
}
