/**
 * The JSON-RPC binding of an agent endpoint. The edge checks run here, in order, each with the
 * spec's code: protocol version (-32009), the body's media type (-32005, HTTP 415), JSON (-32700),
 * request object (-32600), method (-32601), params (-32602, zod). Valid requests go to the dialect of the requested version
 * (v1.0 or v0.3, see jsonrpc-protocols.ts), which drives the durable request handler; streaming
 * methods answer with SSE.
 */
import { ContentTypeNotSupportedError, VersionNotSupportedError } from "@a2a-js/sdk/errors";
import { ServerCallContext } from "@a2a-js/sdk/server";
import type { Context } from "hono";
import { z } from "zod";
import { TOO_DEEP_MESSAGE, tooDeep } from "../protocol/json-shape.ts";
import {
  errorResponse,
  INTERNAL_ERROR,
  invalidParams,
  invalidRequest,
  methodNotFound,
  parseError,
} from "./jsonrpc-errors.ts";
import {
  dialectFor,
  type JsonRpcDialect,
  methodSpec,
  type RpcResponse,
  renamedMethodHint,
  V1_DIALECT,
} from "./jsonrpc-protocols.ts";
import { isJsonContentType } from "./media-types.ts";
import type { DurableRequestHandler } from "./request-handler.ts";
import { idOf } from "./rpc-id.ts";
import { bindingSse, sseOnce, sseResponse } from "./sse.ts";
import { unsupportedVersionMessage } from "./version.ts";

const RequestId = z.union([z.string(), z.number().int(), z.null()]);

const Envelope = z.object({
  jsonrpc: z.literal("2.0", { message: 'jsonrpc must be "2.0"' }),
  id: RequestId.optional(),
  method: z.string({ message: "method must be a string" }).min(1, "method must not be empty"),
  params: z.unknown().optional(),
});

/** What the endpoint needs per request. */
export interface JsonRpcOptions {
  version: string;
  versionFromClient: boolean;
  /** The request's `Content-Type` header (absent: read as JSON). */
  contentType?: string | undefined;
  handler: DurableRequestHandler;
  keepaliveMs: number;
  /** Called with the method name once it is known (for logs). */
  onMethod?(method: string): void;
  onInternalError?(error: unknown): void;
  /** Re-checks the caller's credentials during a stream. */
  stillAuthorized?(): Promise<boolean>;
}

function sanitize(response: RpcResponse, onInternalError?: (e: unknown) => void): RpcResponse {
  const error = response.error as { code?: number; message?: string } | undefined;
  if (error?.code === INTERNAL_ERROR && error.message !== "Internal error") {
    onInternalError?.(new Error(error.message));
    return {
      jsonrpc: "2.0",
      id: response.id,
      error: { code: INTERNAL_ERROR, message: "Internal error" },
    };
  }
  return response;
}

/** Answers one JSON-RPC request body. */
export async function handleJsonRpc(
  c: Context,
  body: string,
  options: JsonRpcOptions,
): Promise<Response> {
  const dialect = dialectFor(options.version);
  const fail = (id: string | number | null, error: unknown, status: 200 | 415 = 200) =>
    c.json(errorResponse(id, error, (dialect ?? V1_DIALECT).errorObject), status);
  // Parsed first, so the version and media type checks answer with the request's id too.
  let raw: unknown;
  let notJson: string | null = null;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    notJson = error instanceof Error ? error.message : "not JSON";
  }
  const readId = notJson === null ? idOf(raw) : null;
  if (!dialect) {
    return fail(
      readId,
      new VersionNotSupportedError(
        unsupportedVersionMessage(options.version, options.versionFromClient),
      ),
    );
  }
  if (!isJsonContentType(options.contentType)) {
    const type = options.contentType?.slice(0, 100) ?? "";
    return fail(
      readId,
      new ContentTypeNotSupportedError(
        `a JSON-RPC request body must be application/json (or application/a2a+json), not ${type}`,
      ),
      415,
    );
  }
  if (notJson !== null) return fail(null, parseError(notJson));
  if (Array.isArray(raw)) return fail(null, invalidRequest("batch requests are not supported"));
  const envelope = Envelope.safeParse(raw);
  if (!envelope.success) {
    const id = RequestId.safeParse((raw as { id?: unknown } | null)?.id);
    const issue = envelope.error.issues[0];
    const detail = issue
      ? `${issue.path.join(".") || "request"}: ${issue.message}`
      : "not a JSON-RPC request";
    return fail(id.success ? id.data : null, invalidRequest(detail));
  }
  const { method, params } = envelope.data;
  const id = envelope.data.id ?? null;
  options.onMethod?.(method);
  const spec = methodSpec(dialect, method);
  if (!spec) {
    const hint =
      dialect.version === "0.3" && !options.versionFromClient && methodSpec(V1_DIALECT, method)
        ? "; the request has no A2A-Version header, so it was read as A2A 0.3: send A2A-Version: 1.0"
        : renamedMethodHint(dialect, method);
    return fail(id, methodNotFound(method, Object.keys(dialect.methods), dialect.version, hint));
  }
  if (
    params !== undefined &&
    (typeof params !== "object" || params === null || Array.isArray(params))
  ) {
    return fail(
      id,
      invalidParams(
        new z.ZodError([
          { code: "custom", path: [], message: "params must be an object", input: params },
        ]),
      ),
    );
  }
  // Spec 0.3.0 §7: a streaming method answers with an SSE stream, errors included.
  const streamErrors = dialect.version === "0.3" && spec.streaming;
  const deep = tooDeep(params ?? {});
  const parsed = deep ? null : spec.params.safeParse(params ?? {});
  if (deep || !parsed?.success) {
    const error = invalidParams(
      deep
        ? new z.ZodError([{ code: "custom", path: deep, message: TOO_DEEP_MESSAGE, input: null }])
        : (parsed?.error as z.ZodError),
    );
    return streamErrors
      ? sseOnce(c, JSON.stringify(errorResponse(id, error, dialect.errorObject)))
      : fail(id, error);
  }
  return dispatch(
    c,
    dialect,
    { jsonrpc: "2.0", id, method, params: parsed.data as Record<string, unknown> },
    options,
    streamErrors,
  );
}

async function dispatch(
  c: Context,
  dialect: JsonRpcDialect,
  request: {
    jsonrpc: string;
    id: string | number | null;
    method: string;
    params: Record<string, unknown>;
  },
  options: JsonRpcOptions,
  streamErrors: boolean,
): Promise<Response> {
  const context = new ServerCallContext({ requestedVersion: dialect.version });
  const answer = (response: RpcResponse) =>
    streamErrors && response.error ? sseOnce(c, JSON.stringify(response)) : c.json(response);
  const result = await dialect.dispatch(options.handler, request, context);
  if (!isAsyncGenerator(result)) return answer(sanitize(result, options.onInternalError));
  let first: IteratorResult<RpcResponse, void>;
  try {
    first = await result.next();
  } catch (error) {
    const response = errorResponse(request.id, error, dialect.errorObject);
    if (response.error.code === INTERNAL_ERROR) options.onInternalError?.(error);
    return answer(response);
  }
  return sseResponse(
    c,
    // Nothing at all: a reconnect after the last event of an ended task (spec 1.0.1 §3.1.6).
    first.done ? null : JSON.stringify(sanitize(first.value)),
    mapStream(result, options.onInternalError),
    bindingSse(
      options,
      (error) => JSON.stringify(errorResponse(request.id, error, dialect.errorObject)),
      {
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32000, message: "Unauthorized: the credentials were revoked" },
      },
    ),
  );
}

async function* mapStream(
  source: AsyncGenerator<RpcResponse, void, undefined>,
  onInternalError?: (e: unknown) => void,
): AsyncGenerator<string, void, undefined> {
  for await (const response of source) yield JSON.stringify(sanitize(response, onInternalError));
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<RpcResponse, void, undefined> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
