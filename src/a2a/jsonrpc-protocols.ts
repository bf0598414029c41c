/**
 * The two JSON-RPC dialects served on one endpoint, chosen by the request's `A2A-Version`:
 * v1.0 (`SendMessage`, ...) through the SDK's `JsonRpcTransportHandler`, and v0.3
 * (`message/send`, ...) through its `LegacyJsonRpcTransportHandler`. Both drive the same
 * request handler, so both reach the same task objects.
 */
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  type ServerCallContext,
} from "@a2a-js/sdk/server";
import type { z } from "zod";
import { type JsonRpcErrorObject, toErrorObject, toLegacyErrorObject } from "./jsonrpc-errors.ts";
import {
  CancelTaskParams,
  ExtendedCardParams,
  GetTaskParams,
  ListTasksParams,
  PushConfigParams,
  SendMessageParams,
  SubscribeToTaskParams,
} from "./params.ts";
import {
  DeletePushConfigParamsV03,
  MessageSendParamsV03,
  PassThroughV03,
  PushConfigQueryParamsV03,
  SetPushConfigParamsV03,
  TaskIdParamsV03,
  TaskQueryParamsV03,
} from "./params-v03.ts";

/** A method's parameter schema and whether it answers with a stream. */
export interface MethodSpec {
  params: z.ZodType;
  streaming: boolean;
}

/** A JSON-RPC response or error envelope as the transports produce them. */
export type RpcResponse = {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
};

/** One protocol version's JSON-RPC dialect. */
export interface JsonRpcDialect {
  version: "1.0" | "0.3";
  methods: Readonly<Record<string, MethodSpec>>;
  errorObject(error: unknown): JsonRpcErrorObject;
  dispatch(
    handler: A2ARequestHandler,
    request: Record<string, unknown>,
    context: ServerCallContext,
  ): Promise<RpcResponse | AsyncGenerator<RpcResponse, void, undefined>>;
}

/** A2A v1.0 JSON-RPC. */
export const V1_DIALECT: JsonRpcDialect = {
  version: "1.0",
  methods: {
    SendMessage: { params: SendMessageParams, streaming: false },
    SendStreamingMessage: { params: SendMessageParams, streaming: true },
    GetTask: { params: GetTaskParams, streaming: false },
    ListTasks: { params: ListTasksParams, streaming: false },
    CancelTask: { params: CancelTaskParams, streaming: false },
    SubscribeToTask: { params: SubscribeToTaskParams, streaming: true },
    CreateTaskPushNotificationConfig: { params: PushConfigParams, streaming: false },
    GetTaskPushNotificationConfig: { params: PushConfigParams, streaming: false },
    ListTaskPushNotificationConfigs: { params: PushConfigParams, streaming: false },
    DeleteTaskPushNotificationConfig: { params: PushConfigParams, streaming: false },
    GetExtendedAgentCard: { params: ExtendedCardParams, streaming: false },
  },
  errorObject: toErrorObject,
  dispatch: (handler, request, context) =>
    new JsonRpcTransportHandler(handler).handle(request, context),
};

/** A2A v0.3 JSON-RPC. */
export const V03_DIALECT: JsonRpcDialect = {
  version: "0.3",
  methods: {
    "message/send": { params: MessageSendParamsV03, streaming: false },
    "message/stream": { params: MessageSendParamsV03, streaming: true },
    "tasks/get": { params: TaskQueryParamsV03, streaming: false },
    "tasks/cancel": { params: TaskIdParamsV03, streaming: false },
    "tasks/resubscribe": { params: TaskIdParamsV03, streaming: true },
    "tasks/pushNotificationConfig/set": { params: SetPushConfigParamsV03, streaming: false },
    "tasks/pushNotificationConfig/get": { params: PushConfigQueryParamsV03, streaming: false },
    "tasks/pushNotificationConfig/list": { params: PushConfigQueryParamsV03, streaming: false },
    "tasks/pushNotificationConfig/delete": { params: DeletePushConfigParamsV03, streaming: false },
    "agent/getAuthenticatedExtendedCard": { params: PassThroughV03, streaming: false },
  },
  errorObject: toLegacyErrorObject,
  dispatch: async (handler, request, context) => {
    const result = (await new LegacyJsonRpcTransportHandler(handler).handle(request, context)) as
      | RpcResponse
      | AsyncGenerator<RpcResponse, void, undefined>;
    return Symbol.asyncIterator in result ? markInterruptedFinal(result) : result;
  },
};

const INTERRUPTED_V03 = new Set(["input-required", "auth-required"]);

/**
 * The SDK's v0.3 conversion marks `final` only on terminal states, but the stream also ends when
 * the task waits for input (spec 0.3.0 §7.2: `final` is the last event of the interaction), as
 * v0.3 servers such as the Python SDK mark it. Sets `final: true` there.
 */
async function* markInterruptedFinal(
  source: AsyncGenerator<RpcResponse, void, undefined>,
): AsyncGenerator<RpcResponse, void, undefined> {
  for await (const response of source) {
    const result = (response as { result?: Record<string, unknown> }).result;
    const state = (result?.status as { state?: string } | undefined)?.state;
    if (result?.kind === "status-update" && state && INTERRUPTED_V03.has(state))
      yield { ...response, result: { ...result, final: true } } as RpcResponse;
    else yield response;
  }
}

/**
 * A method of `dialect` by its (untrusted) name, or undefined: only the dialect's own methods,
 * never an inherited property such as `__proto__` or `toString`.
 */
export function methodSpec(dialect: JsonRpcDialect, method: string): MethodSpec | undefined {
  return Object.hasOwn(dialect.methods, method) ? dialect.methods[method] : undefined;
}

/**
 * Method names that no A2A version defines but older drafts and design documents use, with what
 * each version calls the method: `message/sendSubscribe` (streaming, in some designs), and A2A
 * 0.1's `tasks/send` and `tasks/sendSubscribe` (renamed in 0.2). They are not aliases: an alias
 * would be a method no card advertises, which every method-keyed rule (rate limits, logs) would
 * have to know; a call answers -32601 naming the method to use instead.
 */
const RENAMED_METHODS: Readonly<Record<string, MethodNames>> = {
  "message/sendSubscribe": { "1.0": "SendStreamingMessage", "0.3": "message/stream" },
  "tasks/sendSubscribe": { "1.0": "SendStreamingMessage", "0.3": "message/stream" },
  "tasks/send": { "1.0": "SendMessage", "0.3": "message/send" },
};

/** A method's name in each version. */
type MethodNames = Readonly<Record<JsonRpcDialect["version"], string>>;

/**
 * The end of a -32601 message for an older method name (see {@link RENAMED_METHODS}): the method
 * of `dialect`'s version to call instead, and the other version's; "" for any other name.
 */
export function renamedMethodHint(dialect: JsonRpcDialect, method: string): string {
  if (!Object.hasOwn(RENAMED_METHODS, method)) return "";
  const names = RENAMED_METHODS[method] as MethodNames;
  const other = dialect.version === "1.0" ? "0.3" : "1.0";
  return `; ${method} is an older name: call ${names[dialect.version]} (A2A ${dialect.version}; in A2A ${other}: ${names[other]})`;
}

/** The dialect for a requested version, or null when the endpoint does not speak it. */
export function dialectFor(version: string): JsonRpcDialect | null {
  if (version === "1.0") return V1_DIALECT;
  if (version === "0.3") return V03_DIALECT;
  return null;
}
