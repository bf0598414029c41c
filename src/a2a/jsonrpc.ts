/**
 * The JSON-RPC binding of an agent endpoint. The edge checks run here, in order, each with the
 * spec's code: JSON (-32700), request object (-32600), protocol version (-32009), method
 * (-32601), params (-32602, zod). Valid requests are dispatched by the @a2a-js/sdk
 * `JsonRpcTransportHandler` to the durable request handler; streaming methods answer with SSE.
 */
import { VersionNotSupportedError } from "@a2a-js/sdk/errors";
import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import type { Context } from "hono";
import { z } from "zod";
import {
  errorResponse,
  INTERNAL_ERROR,
  invalidParams,
  invalidRequest,
  methodNotFound,
  parseError,
} from "./jsonrpc-errors.ts";
import {
  CancelTaskParams,
  ExtendedCardParams,
  GetTaskParams,
  PushConfigParams,
  SendMessageParams,
  SubscribeToTaskParams,
} from "./params.ts";
import type { DurableRequestHandler } from "./request-handler.ts";
import { sseResponse } from "./sse.ts";
import { SUPPORTED_VERSIONS, unsupportedVersionMessage } from "./version.ts";

const RequestId = z.union([z.string(), z.number().int(), z.null()]);

const Envelope = z.object({
  jsonrpc: z.literal("2.0", { message: 'jsonrpc must be "2.0"' }),
  id: RequestId.optional(),
  method: z.string({ message: "method must be a string" }).min(1, "method must not be empty"),
  params: z.unknown().optional(),
});

interface MethodSpec {
  params: z.ZodType;
  streaming: boolean;
}

/** The v1.0 methods and their parameter schemas. */
export const V1_METHODS: Readonly<Record<string, MethodSpec>> = {
  SendMessage: { params: SendMessageParams, streaming: false },
  SendStreamingMessage: { params: SendMessageParams, streaming: true },
  GetTask: { params: GetTaskParams, streaming: false },
  CancelTask: { params: CancelTaskParams, streaming: false },
  SubscribeToTask: { params: SubscribeToTaskParams, streaming: true },
  CreateTaskPushNotificationConfig: { params: PushConfigParams, streaming: false },
  GetTaskPushNotificationConfig: { params: PushConfigParams, streaming: false },
  ListTaskPushNotificationConfigs: { params: PushConfigParams, streaming: false },
  DeleteTaskPushNotificationConfig: { params: PushConfigParams, streaming: false },
  GetExtendedAgentCard: { params: ExtendedCardParams, streaming: false },
};

/** What the endpoint needs per request. */
export interface JsonRpcOptions {
  version: string;
  versionFromClient: boolean;
  handler: DurableRequestHandler;
  keepaliveMs: number;
  /** Called with the method name once it is known (for logs). */
  onMethod?(method: string): void;
  onInternalError?(error: unknown): void;
}

type RpcResponse = {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
};

function sanitize(response: RpcResponse, onInternalError?: (e: unknown) => void): RpcResponse {
  const error = response.error as { code?: number; message?: string } | undefined;
  if (error?.code === INTERNAL_ERROR) {
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
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    return c.json(
      errorResponse(null, parseError(error instanceof Error ? error.message : "not JSON")),
    );
  }
  if (Array.isArray(raw))
    return c.json(errorResponse(null, invalidRequest("batch requests are not supported")));
  const envelope = Envelope.safeParse(raw);
  if (!envelope.success) {
    const id = RequestId.safeParse((raw as { id?: unknown } | null)?.id);
    const issue = envelope.error.issues[0];
    const detail = issue
      ? `${issue.path.join(".") || "request"}: ${issue.message}`
      : "not a JSON-RPC request";
    return c.json(errorResponse(id.success ? id.data : null, invalidRequest(detail)));
  }
  const { method, params } = envelope.data;
  const id = envelope.data.id ?? null;
  options.onMethod?.(method);
  if (!SUPPORTED_VERSIONS.includes(options.version)) {
    const error = new VersionNotSupportedError(
      unsupportedVersionMessage(options.version, options.versionFromClient),
    );
    return c.json(errorResponse(id, error));
  }
  const spec = V1_METHODS[method];
  if (!spec) return c.json(errorResponse(id, methodNotFound(method, Object.keys(V1_METHODS))));
  if (
    params !== undefined &&
    (typeof params !== "object" || params === null || Array.isArray(params))
  ) {
    return c.json(
      errorResponse(
        id,
        invalidParams(
          new z.ZodError([
            { code: "custom", path: [], message: "params must be an object", input: params },
          ]),
        ),
      ),
    );
  }
  const parsed = spec.params.safeParse(params ?? {});
  if (!parsed.success) return c.json(errorResponse(id, invalidParams(parsed.error)));

  const transport = new JsonRpcTransportHandler(options.handler);
  const context = new ServerCallContext({ requestedVersion: options.version });
  const request = { jsonrpc: "2.0", id, method, params: parsed.data as Record<string, unknown> };
  const result = await transport.handle(request, context);
  if (!isAsyncGenerator(result)) return c.json(sanitize(result, options.onInternalError));

  let first: IteratorResult<RpcResponse, void>;
  try {
    first = await result.next();
  } catch (error) {
    return c.json(sanitize(errorResponse(id, error) as RpcResponse, options.onInternalError));
  }
  if (first.done)
    return c.json(errorResponse(id, new Error("the stream ended before its first event")));
  return sseResponse(c, first.value, result, {
    requestId: id,
    keepaliveMs: options.keepaliveMs,
    currentId: () => options.handler.lastSeq,
    ...(options.onInternalError ? { onError: options.onInternalError } : {}),
  });
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<RpcResponse, void, undefined> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
