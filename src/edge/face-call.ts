/**
 * Reads the body of a request to a face other than A2A (MCP, AG-UI) once, at the edge, before the
 * rate limits, as rpc-call.ts reads a JSON-RPC one: parsed as JSON (undefined when it is not),
 * checked as the edge checks every body (sent as JSON: platform/content-type.ts, else 415; nested
 * no deeper than MAX_JSON_DEPTH: protocol/json-shape.ts, else 400), and described by the face
 * (what the log line names, whether it sends a message, whether it holds its response open). The
 * result is the request's {@link FaceCall} (c.var.faceCall), which the rate limits, the log line
 * and the face's route read; a body that is not JSON, or refused, is answered by the route in its
 * own shape after its own checks (the agent), so those keep their order, and is never counted as a
 * message or a stream.
 */
import type { Context, MiddlewareHandler } from "hono";
import { nonJsonBody } from "../platform/content-type.ts";
import { jsonBody } from "../platform/json-body.ts";
import type { AppEnv, FaceCall } from "../protocol/app-types.ts";
import { TOO_DEEP_MESSAGE, tooDeep } from "../protocol/json-shape.ts";

/** The calls the edge reads into the request's variables, one per kind of face. */
type CallKey = "rpcCall" | "restCall" | "faceCall";

/**
 * The call the edge read into `c.var[key]` (by rpcCall(), restCall() or {@link faceCall}, which
 * run before the route); a route reached without it is a wiring bug, an internal error.
 */
export function edgeCall<K extends CallKey>(
  c: Context<AppEnv>,
  key: K,
): NonNullable<AppEnv["Variables"][K]> {
  const call = c.get(key);
  if (!call) throw new Error(`the edge read no ${key} for ${c.req.method} ${c.req.path}`);
  return call;
}

/** What a face makes of a request's body (undefined: not JSON). */
export type DescribeCall = (body: unknown) => Pick<FaceCall, "method" | "sends" | "streams">;

/** Why the edge refuses `body` of `request`, or null. */
function refusalOf(request: Request, body: unknown): FaceCall["refusal"] {
  const notJson = nonJsonBody(request);
  if (notJson) return { status: 415, message: notJson };
  const deep = body === undefined ? null : tooDeep(body);
  if (deep) return { status: 400, message: `the body ${TOO_DEEP_MESSAGE} (at ${deep.join(".")})` };
  return null;
}

/** Middleware: reads the call into `c.var.faceCall` (after authentication, before limits). */
export function faceCall(describe: DescribeCall): MiddlewareHandler<AppEnv> {
  return async function readFaceCall(c, next) {
    const body = await jsonBody(c.req);
    const refusal = refusalOf(c.req.raw, body);
    const call = describe(body);
    c.set(
      "faceCall",
      refusal
        ? { body, ...call, sends: false, streams: false, refusal }
        : { body, ...call, refusal },
    );
    await next();
  };
}
