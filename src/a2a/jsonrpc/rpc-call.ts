/**
 * Reads a JSON-RPC request once, at the edge, before the rate limits: the protocol version
 * (-32009), the body's media type (-32005, HTTP 415; JSON only: platform/content-type.ts), JSON
 * (-32700), the request object (-32600), the method (-32601) and the shape of params. The result is the request's
 * {@link RpcCall} (c.var.rpcCall), which the rate limits, consent, the log line and the binding
 * read; a request that cannot be served carries its error, answered by the binding after the
 * route's own checks (agent, access), so those keep their order.
 */
import { ContentTypeNotSupportedError, VersionNotSupportedError } from "@a2a-js/sdk/errors";
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import { invalidParams, invalidRequest, methodNotFound, parseError } from "../../edge/errors.ts";
import { nonJsonBody } from "../../platform/content-type.ts";
import { bodyText } from "../../platform/json-body.ts";
import type { AppEnv, RpcCall } from "../../protocol/app-types.ts";
import { isJsonObject } from "../../protocol/json-shape.ts";
import { lazy } from "../../utils/lazy.ts";
import { methodHint } from "../method-hints.ts";
import { methodNames, rpcMethod } from "../methods.ts";
import { isA2AVersion, requestedVersion, unsupportedVersionMessage } from "../version.ts";
import { idOf } from "./rpc-id.ts";

const requestId = lazy(() => z.union([z.string(), z.number().int(), z.null()]));

const envelopeSchema = lazy(() =>
  z.object({
    jsonrpc: z.literal("2.0", { message: 'jsonrpc must be "2.0"' }),
    id: requestId().optional(),
    method: z.string({ message: "method must be a string" }).min(1, "method must not be empty"),
    params: z.unknown().optional(),
  }),
);

/** Reads the request's JSON-RPC call (the body is read here, and nowhere else). */
export async function readRpcCall(c: Context<AppEnv>): Promise<RpcCall> {
  const version = requestedVersion(c.req.raw);
  const call: RpcCall = {
    id: null,
    version,
    method: null,
    params: undefined,
    sends: false,
    streams: false,
    failure: null,
  };
  const fail = (error: unknown, status: 200 | 415 = 200): RpcCall => ({
    ...call,
    failure: { error, status },
  });
  // The body is read first, so that every error below answers with the request's id.
  let raw: unknown;
  let parseFailure: string | null = null;
  try {
    raw = JSON.parse(await bodyText(c.req));
  } catch (error) {
    parseFailure = error instanceof Error ? error.message : "not JSON";
  }
  call.id = idOf(raw);
  if (!isA2AVersion(version))
    return fail(new VersionNotSupportedError(unsupportedVersionMessage(version)));
  const notJson = nonJsonBody(c.req.raw);
  if (notJson) return fail(new ContentTypeNotSupportedError(`a JSON-RPC request: ${notJson}`), 415);
  if (parseFailure !== null) return fail(parseError(parseFailure));
  if (Array.isArray(raw)) return fail(invalidRequest("batch requests are not supported"));
  const envelope = envelopeSchema().safeParse(raw);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    const detail = issue
      ? `${issue.path.join(".") || "request"}: ${issue.message}`
      : "not a JSON-RPC request";
    return fail(invalidRequest(detail));
  }
  const { method, params } = envelope.data;
  call.id = envelope.data.id ?? null;
  call.method = method;
  const spec = rpcMethod(version, method);
  if (!spec) {
    const headerSent = Boolean(
      c.req.header("A2A-Version") ?? new URL(c.req.url).searchParams.get("A2A-Version"),
    );
    const hint = methodHint(version, method, headerSent);
    return fail(methodNotFound(method, methodNames(version), version, hint));
  }
  call.sends = spec.sends;
  call.streams = spec.streaming;
  if (params !== undefined && !isJsonObject(params))
    return fail(
      invalidParams(
        new z.ZodError([
          { code: "custom", path: [], message: "params must be an object", input: params },
        ]),
      ),
    );
  call.params = params;
  return call;
}

/** Middleware: reads the JSON-RPC call into `c.var.rpcCall` (after authentication, before limits). */
export function rpcCall(): MiddlewareHandler<AppEnv> {
  return async function readCall(c, next) {
    c.set("rpcCall", await readRpcCall(c));
    await next();
  };
}
