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
import type { GatewayEvent } from "../../gateway/task-gateway.ts";
import type { RpcCall } from "../../protocol/app-types.ts";
import { TOO_DEEP_MESSAGE, tooDeep } from "../../protocol/json-shape.ts";
import type { CallContext } from "../call-context.ts";
import { type A2AVersion, type MethodSpec, methodSpec } from "../methods.ts";
import { runStream, runUnary } from "../operations.ts";

/** What the endpoint needs per request. */
export interface JsonRpcOptions extends BindingStream {
  /** The agent's gateway, the caller and the card (built by routes.ts). */
  context(): Promise<CallContext>;
}

/** Validated params of `spec`, in v1.0 wire form; throws the -32602. */
function validParams(spec: MethodSpec, params: Record<string, unknown> | undefined): unknown {
  const input = params ?? {};
  const deep = tooDeep(input);
  if (deep)
    throw invalidParams(
      new z.ZodError([{ code: "custom", path: deep, message: TOO_DEEP_MESSAGE, input: null }]),
    );
  const parsed = spec.params.safeParse(input);
  if (!parsed.success) throw invalidParams(parsed.error);
  const data = parsed.data as Record<string, unknown>;
  return spec.toWire ? spec.toWire(data) : data;
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
  const spec = methodSpec(version, call.method ?? "") as MethodSpec;
  // Spec 0.3.0 §7: a streaming method answers with an SSE stream, errors included. Otherwise an
  // edge error (HttpError: a status, maybe Retry-After or WWW-Authenticate) goes to the Worker's
  // onError, which answers it with its status and headers in this call's shape and id, as REST's.
  const answerError = (error: unknown) => {
    if (version === "0.3" && spec.streaming) return sseOnce(c, JSON.stringify(errorBody(error)));
    if (error instanceof HTTPException) throw error;
    return c.json(errorBody(error));
  };
  let params: unknown;
  try {
    params = validParams(spec, call.params);
  } catch (error) {
    return answerError(error);
  }
  const encode = (result: unknown) => (spec.fromWire ? spec.fromWire(result) : result);
  try {
    const ctx = await options.context();
    if (!spec.streaming) {
      const result = await runUnary(ctx, spec.op, params, version);
      return c.json({ jsonrpc: "2.0", id: call.id, result: encode(result) });
    }
    const source = runStream(ctx, spec.op, params);
    const item = ({ seq, event }: GatewayEvent): SseItem => ({
      id: seq,
      data: JSON.stringify({ jsonrpc: "2.0", id: call.id, result: encode(event) }),
    });
    // The first event is awaited, so a refusal is an error answer, not a stream; no event at
    // all (a reconnect after the last event of an ended task) is no stream (spec 1.0.1 §3.1.6).
    return await sourceSse(
      c,
      source,
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
