/**
 * The JSON-RPC binding of an agent endpoint, both protocol generations on one URL. It answers a
 * call the edge already read (rpc-call.ts): a call that cannot be served with its error; else the
 * method's params are validated once (methods.ts; -32602 with field violations, and refused when
 * nested too deep), translated from v0.3 where needed, and run on the task gateway
 * (operations.ts). Streaming methods answer with SSE, each event with its sequence number as id.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { invalidParams, rpcErrorResponse } from "../../edge/errors.ts";
import {
  type BindingStream,
  bindingSse,
  REVOKED_MESSAGE,
  type SseItem,
  sourceSse,
  sseOnce,
} from "../../edge/sse.ts";
import type { RpcCall } from "../../protocol/app-types.ts";
import { TOO_DEEP_MESSAGE, tooDeep } from "../../protocol/json-shape.ts";
import type { CallContext } from "../call-context.ts";
import type { AnsweredEvent, Call, Method } from "../method-entry.ts";
import { rpcMethod } from "../methods.ts";
import type { A2AVersion } from "../version.ts";

/** What the endpoint needs per request. */
export interface JsonRpcOptions extends BindingStream {
  /** The agent's gateway, the caller and the card (built by routes.ts). */
  context(): Promise<CallContext>;
}

/** The call of `method` with `params`, validated (no deeper than the edge's bound); throws the -32602. */
function validCall(method: Method, params: Record<string, unknown> | undefined): Call {
  const input = params ?? {};
  const deep = tooDeep(input);
  if (deep)
    throw invalidParams(
      new z.ZodError([{ code: "custom", path: deep, message: TOO_DEEP_MESSAGE, input: null }]),
    );
  return method.prepare(input, "params");
}

/** Answers one JSON-RPC call. */
export async function handleJsonRpc(
  c: Context,
  call: RpcCall,
  options: JsonRpcOptions,
): Promise<Response> {
  const version: A2AVersion = call.version === "0.3" ? "0.3" : "1.0";
  const log = options.onInternalError;
  const errorBody = (error: unknown) => rpcErrorResponse(call.id, error, version, log);
  if (call.failure) return c.json(errorBody(call.failure.error), call.failure.status);
  // The edge read only calls of the table's methods (rpc-call.ts); anything else is a bug.
  const method = rpcMethod(version, call.method ?? "");
  if (!method) throw new Error(`no method ${call.method} in A2A ${version}`);
  // Spec 0.3.0 §7: a streaming method answers with an SSE stream, errors included. Otherwise an
  // edge error (HttpError: a status, maybe Retry-After or WWW-Authenticate) goes to the Worker's
  // onError, which answers it with its status and headers in this call's shape and id, as REST's.
  const answerError = (error: unknown) => {
    if (version === "0.3" && method.streaming) return sseOnce(c, JSON.stringify(errorBody(error)));
    if (error instanceof HTTPException) throw error;
    return c.json(errorBody(error));
  };
  try {
    const valid = validCall(method, call.params);
    const ctx = await options.context();
    if (!valid.streaming)
      return c.json({ jsonrpc: "2.0", id: call.id, result: await valid.run(ctx) });
    const item = ({ seq, answer }: AnsweredEvent): SseItem => ({
      id: seq,
      data: JSON.stringify({ jsonrpc: "2.0", id: call.id, result: answer }),
    });
    // The first event is awaited, so a refusal is an error answer, not a stream; no event at
    // all (a reconnect after the last event of an ended task) is no stream (spec 1.0.1 §3.1.6).
    return await sourceSse(
      c,
      valid.run(ctx),
      item,
      bindingSse(options, (error) => JSON.stringify(errorBody(error)), {
        jsonrpc: "2.0",
        id: call.id,
        error: { code: -32000, message: REVOKED_MESSAGE },
      }),
    );
  } catch (error) {
    return answerError(error);
  }
}
