/**
 * The one method table of the A2A surface: every method of both protocol generations, each with
 * its JSON-RPC name (v1.0 `SendMessage`, v0.3 `message/send`, ...) and its HTTP+JSON route (verb
 * and path under the agent's URL, spec 1.0.1 §11.3; v0.3's under `v1/`), both over one typed
 * operation (operations.ts). An entry carries its types to its handler: the schema that
 * validates a binding's params (once; built at its first call, not with the table) gives the
 * operation the params it takes, and the answer's encoder takes what the operation gives, each
 * binding in its dialect (v0.3: protocol/v03/). The bindings run an entry without knowing its
 * types: a {@link Method} closes over them. Lookups take untrusted names: only the table's own
 * methods, never `__proto__` or `toString`.
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { z } from "zod";
import { invalidParams } from "../edge/errors.ts";
import type { GatewayEvent } from "../gateway/task-gateway.ts";
import { nearestName } from "../platform/near-miss.ts";
import { isJsonObject, type JsonObject } from "../protocol/json-shape.ts";
import {
  cancelTaskParams,
  extendedCardParams,
  getTaskParams,
  listTasksParams,
  liveMessageParams,
  pushConfigParams,
  sendMessageParams,
  subscribeToTaskParams,
} from "../protocol/params.ts";
import {
  eventToV03Proto,
  pushConfigFromV03Proto,
  pushConfigToV03Proto,
  sendRequestFromV03Proto,
  sendResultToV03Proto,
  taskToV03Proto,
} from "../protocol/v03/http-json.ts";
import {
  eventToV03,
  pushConfigFromV03,
  pushConfigToV03,
  sendParamsFromV03,
  sendResultToV03,
  taskToV03,
} from "../protocol/v03/json-rpc.ts";
import {
  deletePushConfigParamsV03,
  messageSendParamsV03,
  passThroughV03,
  pushConfigQueryParamsV03,
  setPushConfigParamsV03,
  taskIdParamsV03,
  taskQueryParamsV03,
} from "../protocol/v03/params.ts";
import type { Message, StreamEvent, WirePushConfig } from "../protocol/wire.ts";
import type { CallContext } from "./call-context.ts";
import * as op from "./operations.ts";
import type { A2AVersion } from "./version.ts";

/** A stream event as a binding sends it: its sequence number (the SSE id) and its answer. */
export interface AnsweredEvent {
  seq: number | null;
  answer: unknown;
}

/** A call whose params were validated: what it sends, and how it runs. */
export type Call =
  | { streaming: false; message: Message | null; run(ctx: CallContext): Promise<unknown> }
  | {
      streaming: true;
      message: Message | null;
      run(ctx: CallContext): AsyncGenerator<AnsweredEvent, void>;
    };

/** One method as a binding runs it, its params' and answer's types closed over. */
export interface Method {
  /** The operation it runs (operations.ts): the same for a method's counterpart in the other version. */
  readonly op: string;
  /** It answers with a stream (SSE): a stream lease. */
  readonly streaming: boolean;
  /** It sends a message: the message rate, consent. */
  readonly sends: boolean;
  /** v0.3's authenticated extended card: refused to an anonymous caller (extended-card.ts). */
  readonly refusesAnonymous: boolean;
  /** Validates `input` (a -32602 naming each field under `prefix`); the call, ready to run. */
  prepare(input: unknown, prefix: string): Call;
}

/** Where an HTTP+JSON call's params come from, besides the path's variables. */
export type ParamsFrom = "body" | "query" | "path";

/** A method's HTTP+JSON route. */
export interface HttpRoute {
  version: A2AVersion;
  /** The method's JSON-RPC name: the route's name in the table. */
  name: string;
  verbs: readonly string[];
  /** The path under the agent's URL; `{field}` is a params field, the first one the task id. */
  path: string;
  from: ParamsFrom;
  /** A body as the v1.0 params it stands for, before the path's variables join it. */
  decode?(body: unknown): unknown;
  /** The HTTP status of an answer: 201 made, 204 gone (no body). */
  status: 200 | 201 | 204;
  /** What the request's log line names it (`POST send`): the operation's family. */
  label: string;
  method: Method;
}

/** One entry of the table: the method over JSON-RPC, and its HTTP+JSON route if it has one. */
interface Entry {
  rpc: Method;
  http: Omit<HttpRoute, "version" | "name"> | null;
}

function parsed<P>(schema: z.ZodType<P>, input: unknown, prefix: string): P {
  const result = schema.safeParse(input);
  if (!result.success) throw invalidParams(result.error, prefix);
  return result.data;
}

/** Params read in a shape of their own (v0.3's), validated by its schema, then translated. */
class Translated<P> {
  readonly read: (input: unknown, prefix: string) => P;
  constructor(read: (input: unknown, prefix: string) => P) {
    this.read = read;
  }
}

/** A schema as the table holds it: built by its first call (protocol/params.ts), not at load. */
type SchemaOf<P> = () => z.ZodType<P>;

/** Params validated by `schema` in their own shape, as `translate` makes them an operation's. */
const translated = <I, P>(schema: SchemaOf<I>, translate: (input: I) => P) =>
  new Translated((input, prefix) => translate(parsed(schema(), input, prefix)));

/** How a method reads its params: the operation's own schema, or a translation to them. */
type ParamsOf<P> = SchemaOf<P> | Translated<P>;

const reader =
  <P>(params: ParamsOf<P>) =>
  (input: unknown, prefix: string): P =>
    params instanceof Translated ? params.read(input, prefix) : parsed(params(), input, prefix);

/** A unary method: `operation` on the params it reads, answered as `answer` writes its result. */
function unary<P, R>(
  operation: op.Unary<P, R>,
  params: ParamsOf<P>,
  answer: (result: R) => unknown = (result) => result,
  refusesAnonymous = false,
): Method {
  const read = reader(params);
  return {
    op: operation.name,
    streaming: false,
    sends: operation.message !== undefined,
    refusesAnonymous,
    prepare(input, prefix) {
      const params = read(input, prefix);
      return {
        streaming: false,
        message: operation.message?.(params) ?? null,
        run: async (ctx) => answer(await operation.run(ctx, params)),
      };
    },
  };
}

async function* answered(
  events: AsyncGenerator<GatewayEvent, void>,
  answer: (event: StreamEvent) => unknown,
): AsyncGenerator<AnsweredEvent, void> {
  for await (const { seq, event } of events) yield { seq, answer: answer(event) };
}

/** A streaming method: `operation` on the params it reads, each event as `answer` writes it. */
function streaming<P>(
  operation: op.Streaming<P>,
  params: ParamsOf<P>,
  answer: (event: StreamEvent) => unknown = (event) => event,
): Method {
  const read = reader(params);
  return {
    op: operation.name,
    streaming: true,
    sends: operation.message !== undefined,
    refusesAnonymous: false,
    prepare(input, prefix) {
      const params = read(input, prefix);
      return {
        streaming: true,
        message: operation.message?.(params) ?? null,
        run: (ctx) => answered(operation.run(ctx, params), answer),
      };
    },
  };
}

/** An HTTP+JSON route of `verb`(s) at `path`, running `method`. */
function http(
  verbs: string | readonly string[],
  path: string,
  method: Method,
  label: string,
  options: { from?: ParamsFrom; status?: 201 | 204; decode?(body: unknown): unknown } = {},
): Entry["http"] {
  return {
    verbs: typeof verbs === "string" ? [verbs] : verbs,
    path,
    method,
    label,
    from: options.from ?? "path",
    status: options.status ?? 200,
    ...(options.decode ? { decode: options.decode } : {}),
  };
}

/** A push config's body: a JSON object, or the request is malformed. */
function configBody(body: unknown): JsonObject {
  if (!isJsonObject(body)) throw new RequestMalformedError("the body must be a JSON object");
  return body;
}

/** ProtoJSON leaves an empty list out: no configs is `{}`. */
const configsOrNothing = (configs: WirePushConfig[]) => (configs.length > 0 ? { configs } : {});

const PUSH_CONFIGS = "tasks/{taskId}/pushNotificationConfigs";

/** A2A v1.0 (spec 1.0.1 §9 and §11.3). */
const V1: Readonly<Record<string, Entry>> = {
  SendMessage: {
    rpc: unary(op.send, sendMessageParams),
    http: http("POST", "message:send", unary(op.send, sendMessageParams), "send", { from: "body" }),
  },
  SendStreamingMessage: {
    rpc: streaming(op.stream, sendMessageParams),
    http: http("POST", "message:stream", streaming(op.stream, sendMessageParams), "send", {
      from: "body",
    }),
  },
  // The live-messages extension (the A2A 1.1 draft's uplink; SubscribeToTask is its downlink).
  SendLiveMessage: {
    rpc: unary(op.live, liveMessageParams),
    http: http("POST", "live", unary(op.live, liveMessageParams), "send", { from: "body" }),
  },
  GetTask: {
    rpc: unary(op.getTask, getTaskParams),
    http: http("GET", "tasks/{id}", unary(op.getTask, getTaskParams), "get", { from: "query" }),
  },
  ListTasks: {
    rpc: unary(op.listTasks, listTasksParams),
    http: http("GET", "tasks", unary(op.listTasks, listTasksParams), "list", { from: "query" }),
  },
  CancelTask: {
    rpc: unary(op.cancelTask, cancelTaskParams),
    http: http("POST", "tasks/{id}:cancel", unary(op.cancelTask, cancelTaskParams), "cancel"),
  },
  SubscribeToTask: {
    rpc: streaming(op.subscribe, subscribeToTaskParams),
    http: http(
      ["GET", "POST"],
      "tasks/{id}:subscribe",
      streaming(op.subscribe, subscribeToTaskParams),
      "subscribe",
    ),
  },
  CreateTaskPushNotificationConfig: {
    rpc: unary(op.setPushConfig, pushConfigParams),
    http: http("POST", PUSH_CONFIGS, unary(op.setPushConfig, pushConfigParams), "push", {
      from: "body",
      status: 201,
      decode: configBody,
    }),
  },
  GetTaskPushNotificationConfig: {
    rpc: unary(op.getPushConfig, pushConfigParams),
    http: http("GET", `${PUSH_CONFIGS}/{id}`, unary(op.getPushConfig, pushConfigParams), "push"),
  },
  ListTaskPushNotificationConfigs: {
    rpc: unary(op.listPushConfigs, pushConfigParams, configsOrNothing),
    http: http(
      "GET",
      PUSH_CONFIGS,
      unary(op.listPushConfigs, pushConfigParams, (configs) => ({ configs, nextPageToken: "" })),
      "push",
    ),
  },
  DeleteTaskPushNotificationConfig: {
    rpc: unary(op.deletePushConfig, pushConfigParams),
    http: http(
      "DELETE",
      `${PUSH_CONFIGS}/{id}`,
      unary(op.deletePushConfig, pushConfigParams),
      "push",
      { status: 204 },
    ),
  },
  GetExtendedAgentCard: {
    rpc: unary(op.extendedCard("1.0"), extendedCardParams),
    http: http(
      "GET",
      "extendedAgentCard",
      unary(op.extendedCard("1.0"), extendedCardParams),
      "extendedCard",
    ),
  },
};

/** v0.3 JSON-RPC `message/send` params as v1.0's. */
const SendParamsV03 = translated(messageSendParamsV03, sendParamsFromV03);
/** v0.3 HTTP+JSON `v1/message:send` bodies are read with the v1.0 schema, once translated. */
const sendBody = { from: "body", decode: sendRequestFromV03Proto } as const;
const v03Configs = (configs: WirePushConfig[]) => ({
  configs: configs.map(pushConfigToV03Proto),
  nextPageToken: "",
});

/** A2A v0.3 (spec 0.3.0 §7 and §3.5.3), translated to the v1.0 operations. */
const V03: Readonly<Record<string, Entry>> = {
  "message/send": {
    rpc: unary(op.send, SendParamsV03, sendResultToV03),
    http: http(
      "POST",
      "v1/message:send",
      unary(op.send, sendMessageParams, sendResultToV03Proto),
      "send",
      sendBody,
    ),
  },
  "message/stream": {
    rpc: streaming(op.stream, SendParamsV03, eventToV03),
    http: http(
      "POST",
      "v1/message:stream",
      streaming(op.stream, sendMessageParams, eventToV03Proto),
      "send",
      sendBody,
    ),
  },
  "tasks/get": {
    rpc: unary(op.getTask, taskQueryParamsV03, taskToV03),
    http: http("GET", "v1/tasks/{id}", unary(op.getTask, getTaskParams, taskToV03Proto), "get", {
      from: "query",
    }),
  },
  "tasks/cancel": {
    rpc: unary(op.cancelTask, taskIdParamsV03, taskToV03),
    http: http(
      "POST",
      "v1/tasks/{id}:cancel",
      unary(op.cancelTask, cancelTaskParams, taskToV03Proto),
      "cancel",
    ),
  },
  "tasks/resubscribe": {
    rpc: streaming(op.subscribe, taskIdParamsV03, eventToV03),
    http: http(
      ["GET", "POST"],
      "v1/tasks/{id}:subscribe",
      streaming(op.subscribe, subscribeToTaskParams, eventToV03Proto),
      "subscribe",
    ),
  },
  "tasks/pushNotificationConfig/set": {
    // The translated config is checked as a v1.0 one (its fields' own rules: push-config.ts).
    rpc: unary(
      op.setPushConfig,
      translated(setPushConfigParamsV03, (p) =>
        parsed(pushConfigParams(), pushConfigFromV03(p.pushNotificationConfig, p.taskId), "params"),
      ),
      pushConfigToV03,
    ),
    http: http(
      "POST",
      `v1/${PUSH_CONFIGS}`,
      unary(op.setPushConfig, pushConfigParams, pushConfigToV03Proto),
      "push",
      { from: "body", status: 201, decode: (body) => pushConfigFromV03Proto(configBody(body)) },
    ),
  },
  "tasks/pushNotificationConfig/get": {
    rpc: unary(
      op.getPushConfig,
      translated(pushConfigQueryParamsV03, (p) => ({
        taskId: p.id,
        id: p.pushNotificationConfigId ?? "",
      })),
      pushConfigToV03,
    ),
    http: http(
      "GET",
      `v1/${PUSH_CONFIGS}/{id}`,
      unary(op.getPushConfig, pushConfigParams, pushConfigToV03Proto),
      "push",
    ),
  },
  "tasks/pushNotificationConfig/list": {
    rpc: unary(
      op.listPushConfigs,
      translated(pushConfigQueryParamsV03, (p) => ({ taskId: p.id })),
      (configs) => configs.map(pushConfigToV03),
    ),
    http: http(
      "GET",
      `v1/${PUSH_CONFIGS}`,
      unary(op.listPushConfigs, pushConfigParams, v03Configs),
      "push",
    ),
  },
  "tasks/pushNotificationConfig/delete": {
    rpc: unary(
      op.deletePushConfig,
      translated(deletePushConfigParamsV03, (p) => ({
        taskId: p.id,
        id: p.pushNotificationConfigId,
      })),
    ),
    http: http(
      "DELETE",
      `v1/${PUSH_CONFIGS}/{id}`,
      unary(op.deletePushConfig, pushConfigParams),
      "push",
      { status: 204 },
    ),
  },
  // The v0.3 HTTP+JSON card is the v1.0 card, as that binding's clients read it.
  "agent/getAuthenticatedExtendedCard": {
    rpc: unary(op.extendedCard("0.3"), passThroughV03, undefined, true),
    http: http(
      "GET",
      "v1/card",
      unary(op.extendedCard("1.0"), extendedCardParams, undefined, true),
      "extendedCard",
    ),
  },
};

const TABLES: Readonly<Record<A2AVersion, Readonly<Record<string, Entry>>>> = {
  "1.0": V1,
  "0.3": V03,
};

/** The JSON-RPC method `name` of `version` (an untrusted name), or undefined. */
export function rpcMethod(version: A2AVersion, name: string): Method | undefined {
  const table = TABLES[version];
  return Object.hasOwn(table, name) ? table[name]?.rpc : undefined;
}

/** The method names of `version`, for -32601 messages. */
export const methodNames = (version: A2AVersion): string[] => Object.keys(TABLES[version]);

/** Every HTTP+JSON route of both versions, in the table's order. */
export const HTTP_ROUTES: readonly HttpRoute[] = Object.entries(TABLES).flatMap(([v, table]) =>
  Object.entries(table).flatMap(([name, entry]) =>
    entry.http ? [{ ...entry.http, version: v === "0.3" ? "0.3" : "1.0", name } as const] : [],
  ),
);

/** The HTTP+JSON route of method `name` of `version`, or undefined. */
export function httpRoute(version: A2AVersion, name: string): HttpRoute | undefined {
  return HTTP_ROUTES.find((route) => route.version === version && route.name === name);
}

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

/** The JSON-RPC method of `version` that runs the operation named `op`, if it has one. */
function methodFor(version: A2AVersion, op: string): string | undefined {
  return Object.entries(TABLES[version]).find(([, entry]) => entry.rpc.op === op)?.[0];
}

/** The other protocol generation. */
const otherVersion = (version: A2AVersion): A2AVersion => (version === "1.0" ? "0.3" : "1.0");

/**
 * The end of a -32601 message for an older method name (see {@link RENAMED_METHODS}): the method
 * of `version` to call instead, and the other version's; "" for any other name.
 */
function renamedHint(version: A2AVersion, method: string): string {
  const names = Object.hasOwn(RENAMED_METHODS, method) ? RENAMED_METHODS[method] : undefined;
  if (!names) return "";
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
  const spec = rpcMethod(other, method);
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
  const spec = near ? rpcMethod(other, near) : undefined;
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
