/**
 * The one method table of the A2A surface: every method of both protocol generations, each with
 * its JSON-RPC name (v1.0 `SendMessage`, v0.3 `message/send`, ...) and its HTTP+JSON route (verb
 * and path under the agent's URL, spec 1.0.1 §11.3; v0.3's under `v1/`), both over one typed
 * operation (operations.ts). An entry carries its types to its handler: the schema that
 * validates a binding's params (once; built at its first call, not with the table) gives the
 * operation the params it takes, and the answer's encoder takes what the operation gives, each
 * binding in its dialect (v0.3: protocol/v03/). The bindings run an entry without knowing its
 * types: a {@link Method} closes over them (method-entry.ts). Lookups take untrusted names: only
 * the table's own methods, never `__proto__` or `toString`; what a -32601 adds for a name the
 * table lacks: method-hints.ts.
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
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
import type { WirePushConfig } from "../protocol/wire.ts";
import {
  type Entry,
  type HttpRoute,
  http,
  type Method,
  parsed,
  streaming,
  translated,
  unary,
} from "./method-entry.ts";
import * as op from "./operations.ts";
import type { A2AVersion } from "./version.ts";

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

/** The JSON-RPC method of `version` that runs the operation named `op`, if it has one. */
export function methodFor(version: A2AVersion, op: string): string | undefined {
  return Object.entries(TABLES[version]).find(([, entry]) => entry.rpc.op === op)?.[0];
}
