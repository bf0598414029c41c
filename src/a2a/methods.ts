/**
 * The one method table of the A2A surface: every JSON-RPC method of both protocol generations
 * (v1.0 `SendMessage`, v0.3 `message/send`, ...), each with the schema that validates its params
 * (once), the task gateway operation it runs, and for v0.3 the translation of its params and
 * answer (protocol/v03/). The HTTP+JSON binding runs the same operations (rest.ts).
 * Lookups take untrusted names: only the table's own methods, never `__proto__` or `toString`.
 */
import type { z } from "zod";
import { nearestName } from "../platform/near-miss.ts";
import {
  CancelTaskParams,
  ExtendedCardParams,
  GetTaskParams,
  ListTasksParams,
  PushConfigParams,
  SendMessageParams,
  SubscribeToTaskParams,
} from "../protocol/params.ts";
import {
  eventToV03,
  pushConfigFromV03,
  pushConfigToV03,
  sendParamsFromV03,
  sendResultToV03,
  taskToV03,
} from "../protocol/v03/json-rpc.ts";
import {
  DeletePushConfigParamsV03,
  MessageSendParamsV03,
  PassThroughV03,
  PushConfigQueryParamsV03,
  SetPushConfigParamsV03,
  TaskIdParamsV03,
  TaskQueryParamsV03,
} from "../protocol/v03/params.ts";
import type { SendResult, Task, WirePushConfig } from "../protocol/wire.ts";

/** A gateway operation (task-gateway.ts), or the binding's own extended card. */
export type Operation =
  | "send"
  | "stream"
  | "get"
  | "list"
  | "cancel"
  | "subscribe"
  | "setPushConfig"
  | "getPushConfig"
  | "listPushConfigs"
  | "deletePushConfig"
  | "extendedCard";

/** The protocol generations the surface speaks. */
export type A2AVersion = "1.0" | "0.3";

type Json = Record<string, unknown>;

/** One method: its params schema, its operation, and (v0.3) its translations. */
export interface MethodSpec {
  op: Operation;
  params: z.ZodType;
  /** It answers with a stream (SSE). */
  streaming: boolean;
  /** It sends a message (rate limits, consent). */
  sends: boolean;
  /** v0.3: validated params as the v1.0 params of `op`. */
  toWire?(params: Json): Json;
  /** v0.3: an answer (or stream event) of `op` in the v0.3 shape. */
  fromWire?(result: unknown): unknown;
}

const spec = (op: Operation, params: z.ZodType, extra: Partial<MethodSpec> = {}): MethodSpec => ({
  op,
  params,
  streaming: op === "stream" || op === "subscribe",
  sends: op === "send" || op === "stream",
  ...extra,
});

/** A2A v1.0 JSON-RPC methods (spec 1.0.1 §9). */
const V1_METHODS: Readonly<Record<string, MethodSpec>> = {
  SendMessage: spec("send", SendMessageParams),
  SendStreamingMessage: spec("stream", SendMessageParams),
  GetTask: spec("get", GetTaskParams),
  ListTasks: spec("list", ListTasksParams),
  CancelTask: spec("cancel", CancelTaskParams),
  SubscribeToTask: spec("subscribe", SubscribeToTaskParams),
  CreateTaskPushNotificationConfig: spec("setPushConfig", PushConfigParams),
  GetTaskPushNotificationConfig: spec("getPushConfig", PushConfigParams),
  ListTaskPushNotificationConfigs: spec("listPushConfigs", PushConfigParams, {
    // ProtoJSON leaves an empty list out.
    fromWire: (list) => ((list as WirePushConfig[]).length > 0 ? { configs: list } : {}),
  }),
  DeleteTaskPushNotificationConfig: spec("deletePushConfig", PushConfigParams),
  GetExtendedAgentCard: spec("extendedCard", ExtendedCardParams),
};

const taskV03 = (result: unknown) => taskToV03(result as Task);

/** A2A v0.3 JSON-RPC methods (spec 0.3.0 §7), translated to the v1.0 operations. */
const V03_METHODS: Readonly<Record<string, MethodSpec>> = {
  "message/send": spec("send", MessageSendParamsV03, {
    toWire: (p) => sendParamsFromV03(MessageSendParamsV03.parse(p)),
    fromWire: (r) => sendResultToV03(r as SendResult),
  }),
  "message/stream": spec("stream", MessageSendParamsV03, {
    toWire: (p) => sendParamsFromV03(MessageSendParamsV03.parse(p)),
    fromWire: (e) => eventToV03(e as Parameters<typeof eventToV03>[0]),
  }),
  "tasks/get": spec("get", TaskQueryParamsV03, { fromWire: taskV03 }),
  "tasks/cancel": spec("cancel", TaskIdParamsV03, { fromWire: taskV03 }),
  "tasks/resubscribe": spec("subscribe", TaskIdParamsV03, {
    fromWire: (e) => eventToV03(e as Parameters<typeof eventToV03>[0]),
  }),
  "tasks/pushNotificationConfig/set": spec("setPushConfig", SetPushConfigParamsV03, {
    toWire: (p) => pushConfigFromV03(p.pushNotificationConfig as Json, p.taskId as string),
    fromWire: (c) => pushConfigToV03(c as WirePushConfig),
  }),
  "tasks/pushNotificationConfig/get": spec("getPushConfig", PushConfigQueryParamsV03, {
    toWire: (p) => ({ taskId: p.id, id: p.pushNotificationConfigId ?? "" }),
    fromWire: (c) => pushConfigToV03(c as WirePushConfig),
  }),
  "tasks/pushNotificationConfig/list": spec("listPushConfigs", PushConfigQueryParamsV03, {
    toWire: (p) => ({ taskId: p.id }),
    fromWire: (list) => (list as WirePushConfig[]).map((c) => pushConfigToV03(c)),
  }),
  "tasks/pushNotificationConfig/delete": spec("deletePushConfig", DeletePushConfigParamsV03, {
    toWire: (p) => ({ taskId: p.id, id: p.pushNotificationConfigId }),
  }),
  "agent/getAuthenticatedExtendedCard": spec("extendedCard", PassThroughV03),
};

const TABLES: Readonly<Record<A2AVersion, Readonly<Record<string, MethodSpec>>>> = {
  "1.0": V1_METHODS,
  "0.3": V03_METHODS,
};

/** A method of `version` by its (untrusted) name, or undefined. */
export function methodSpec(version: A2AVersion, method: string): MethodSpec | undefined {
  const table = TABLES[version];
  return Object.hasOwn(table, method) ? table[method] : undefined;
}

/** The method names of `version`, for -32601 messages. */
export const methodNames = (version: A2AVersion): string[] => Object.keys(TABLES[version]);

/**
 * Method names that no A2A version defines but older drafts and design documents use, with what
 * each version calls the method: `message/sendSubscribe` (streaming, in some designs), and A2A
 * 0.1's `tasks/send` and `tasks/sendSubscribe` (renamed in 0.2). They are not aliases: an alias
 * would be a method no card advertises, which every method-keyed rule (rate limits, logs) would
 * have to know; a call answers -32601 naming the method to use instead.
 */
const RENAMED_METHODS: Readonly<Record<string, Readonly<Record<A2AVersion, string>>>> = {
  "message/sendSubscribe": { "1.0": "SendStreamingMessage", "0.3": "message/stream" },
  "tasks/sendSubscribe": { "1.0": "SendStreamingMessage", "0.3": "message/stream" },
  "tasks/send": { "1.0": "SendMessage", "0.3": "message/send" },
};

/** The method of `version` that runs `op`, if it has one. */
function methodFor(version: A2AVersion, op: Operation): string | undefined {
  return Object.entries(TABLES[version]).find(([, s]) => s.op === op)?.[0];
}

/** The other protocol generation. */
const otherVersion = (version: A2AVersion): A2AVersion => (version === "1.0" ? "0.3" : "1.0");

/**
 * The end of a -32601 message for an older method name (see {@link RENAMED_METHODS}): the method
 * of `version` to call instead, and the other version's; "" for any other name.
 */
function renamedHint(version: A2AVersion, method: string): string {
  if (!Object.hasOwn(RENAMED_METHODS, method)) return "";
  const names = RENAMED_METHODS[method] as Readonly<Record<A2AVersion, string>>;
  const other = otherVersion(version);
  return `; ${method} is an older name: call ${names[version]} (A2A ${version}; in A2A ${other}: ${names[other]})`;
}

/**
 * The end of a -32601 message for a method of the other version: its name in `version`, or the
 * header that selects the version it belongs to; "" for a name the other version does not have.
 * `headerSent`: the client named the version (else it was read as 0.3, the spec's default).
 */
function otherVersionHint(version: A2AVersion, method: string, headerSent: boolean): string {
  const other = otherVersion(version);
  const spec = methodSpec(other, method);
  if (!spec) return "";
  if (version === "0.3" && !headerSent)
    return "; the request has no A2A-Version header, so it was read as A2A 0.3: send A2A-Version: 1.0";
  const here = methodFor(version, spec.op);
  const call = here ? `call ${here}, or ` : "";
  return `; ${method} is an A2A ${other} method: over A2A ${version} ${call}send A2A-Version: ${other} to call it`;
}

/**
 * A near miss of a method name (a typo, another case): the closest method of `version` within two
 * edits, or the method of `version` for the closest of the other version's; "" for none.
 */
function nearMissHint(version: A2AVersion, method: string): string {
  const own = nearestName(method, methodNames(version), 2);
  if (own) return `; did you mean ${own}?`;
  const other = otherVersion(version);
  const near = nearestName(method, methodNames(other), 2);
  const spec = near ? methodSpec(other, near) : undefined;
  const here = spec ? methodFor(version, spec.op) : undefined;
  return near && here ? `; did you mean ${here}? (${near} in A2A ${other})` : "";
}

/**
 * What a -32601 message adds for a method `version` does not have, first that applies: an older
 * name's successor, the other version's method (or the missing header), a near miss; else "".
 */
export function methodHint(version: A2AVersion, method: string, headerSent: boolean): string {
  return (
    renamedHint(version, method) ||
    otherVersionHint(version, method, headerSent) ||
    nearMissHint(version, method)
  );
}
