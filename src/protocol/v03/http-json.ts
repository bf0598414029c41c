/**
 * The A2A v0.3 HTTP+JSON dialect: ProtoJSON of the v0.3 proto, which the @a2a-js/sdk legacy REST
 * client and the v0.3 kit speak, to and from the v1.0 wire shapes the harness works in. It is not
 * the JSON-RPC dialect (json-rpc.ts: the spec's JSON objects with `kind`s and state words), and
 * both are right for their binding: spec 0.3.0 §3.2.3 asks for JSON "structurally equivalent" to
 * the core objects, and the clients of this binding read the proto's. They differ from v1.0
 * little: messages carry `content` (not `parts`), file parts are `{ file: { fileWithBytes |
 * fileWithUri, mimeType } }`, data parts nest `{ data: { data } }`, send configurations say
 * `blocking`, status updates carry `final`, canceled is `TASK_STATE_CANCELLED`, and a push config
 * is `{ name, pushNotificationConfig }` with `authentication.schemes`. Fields may come under their
 * proto names (`message_id`, `file_with_uri`), as ProtoJSON parsers accept. Answers name a task's
 * and a message's ids by their proto names (`context_id`, `message_id`, `task_id`): every
 * ProtoJSON parser (the SDKs') reads those, and the v0.3 kit's REST client reads only those.
 * Requests are translated unvalidated: the v1.0 schemas check the result. Pure: no I/O.
 */
import { isJsonObject, type JsonObject } from "../json-shape.ts";
import { isSettled, stateToV03Proto } from "../task-states.ts";
import type {
  Message,
  Part,
  SendResult,
  StreamEvent,
  Task,
  TaskStatus,
  WirePushConfig,
} from "../wire.ts";
import { given, returnImmediately } from "./common.ts";

/** `value` when it is a JSON object, else an empty one. */
const objectOr = (value: unknown): JsonObject => (isJsonObject(value) ? value : {});

/** A field by its JSON name, else by its proto name (ProtoJSON parsers accept both). */
const protoField = (o: JsonObject, name: string): unknown =>
  o[name] ?? o[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];

const metadataOf = (o: JsonObject) => (o.metadata !== undefined ? { metadata: o.metadata } : {});

// --- v0.3 -> v1.0 (requests) ---

function fileFromV03(file: JsonObject): JsonObject {
  const mime = protoField(file, "mimeType");
  const media = typeof mime === "string" && mime !== "" ? { mediaType: mime } : {};
  const name = typeof file.name === "string" ? { filename: file.name } : {};
  const bytes = protoField(file, "fileWithBytes");
  if (bytes !== undefined) return { raw: bytes, ...media, ...name };
  return { url: protoField(file, "fileWithUri"), ...media, ...name };
}

function partFromV03(raw: unknown): JsonObject {
  const p = objectOr(raw);
  const meta = metadataOf(p);
  if (typeof p.text === "string") return { text: p.text, ...meta };
  if (p.file !== undefined) return { ...fileFromV03(objectOr(p.file)), ...meta };
  if (p.data !== undefined) return { data: objectOr(p.data).data ?? p.data, ...meta };
  return p;
}

/** A v0.3 message as a v1.0 wire message (unvalidated: protocol/params.ts checks it next). */
function messageFromV03(raw: unknown): JsonObject {
  const { content, parts, ...rest } = objectOr(raw);
  const list = Array.isArray(content) ? content : Array.isArray(parts) ? parts : undefined;
  return { ...rest, ...(list ? { parts: list.map(partFromV03) } : {}) };
}

/** A `message:send` (or `message:stream`) body as a v1.0 SendMessageRequest (unvalidated). */
export function sendRequestFromV03Proto(raw: unknown): JsonObject {
  const body = objectOr(raw);
  const message = messageFromV03(body.message ?? body.request);
  // No configuration: the defaults, as message/send over JSON-RPC (it blocks).
  if (body.configuration === undefined) return { message, ...metadataOf(body) };
  const config = objectOr(body.configuration);
  const accepted = protoField(config, "acceptedOutputModes");
  const historyLength = protoField(config, "historyLength");
  const push = protoField(config, "pushNotification");
  return {
    message,
    configuration: {
      ...(Array.isArray(accepted) ? { acceptedOutputModes: accepted } : {}),
      ...(typeof historyLength === "number" ? { historyLength } : {}),
      ...(push !== undefined ? { taskPushNotificationConfig: objectOr(push) } : {}),
      returnImmediately: returnImmediately(config.blocking),
    },
    ...metadataOf(body),
  };
}

/**
 * A push config body (a JSON object) as a v1.0 config: `pushNotificationConfig` alone or inside
 * `config`, fields under their proto names too (`config_id`), empty ones absent (proto3 defaults).
 */
export function pushConfigFromV03Proto(body: JsonObject): JsonObject {
  const configField = body.config;
  const config = isJsonObject(configField) ? configField : undefined;
  const innerOf = (o: JsonObject | undefined) => {
    const inner = o && protoField(o, "pushNotificationConfig");
    return isJsonObject(inner) ? inner : undefined;
  };
  const inner = innerOf(body) ?? innerOf(config) ?? config ?? body;
  const auth = isJsonObject(inner.authentication) ? inner.authentication : undefined;
  const schemes = Array.isArray(auth?.schemes) ? auth.schemes : [];
  const scheme = schemes[0] ?? auth?.scheme;
  const id = protoField(body, "configId") ?? inner.id;
  return {
    ...(given(id) ? { id } : {}),
    url: inner.url,
    ...(given(inner.token) ? { token: inner.token } : {}),
    ...(given(scheme)
      ? {
          authentication: {
            scheme,
            ...(given(auth?.credentials) ? { credentials: auth?.credentials } : {}),
          },
        }
      : {}),
  };
}

// --- v1.0 -> v0.3 (answers) ---

function partToV03(part: Part): JsonObject {
  const meta = part.metadata === undefined ? {} : { metadata: part.metadata };
  if (part.text !== undefined) return { text: part.text, ...meta };
  if (part.data !== undefined) return { data: { data: part.data }, ...meta };
  const mime = part.mediaType ? { mimeType: part.mediaType } : {};
  if (part.raw !== undefined) return { file: { fileWithBytes: part.raw, ...mime }, ...meta };
  return { file: { fileWithUri: part.url, ...mime }, ...meta };
}

/** A v1.0 wire message in the v0.3 HTTP+JSON shape. */
export function messageToV03Proto(message: Message): JsonObject {
  const { parts, messageId, contextId, taskId, ...rest } = message;
  return {
    message_id: messageId,
    ...(contextId === undefined ? {} : { context_id: contextId }),
    ...(taskId === undefined ? {} : { task_id: taskId }),
    ...rest,
    content: parts.map(partToV03),
  };
}

function statusToV03(status: TaskStatus): JsonObject {
  return {
    ...status,
    state: stateToV03Proto(status.state),
    ...(status.message ? { message: messageToV03Proto(status.message) } : {}),
  };
}

/** A v1.0 wire task in the v0.3 HTTP+JSON shape. */
export function taskToV03Proto(task: Task): JsonObject {
  const { contextId, ...rest } = task;
  return {
    ...rest,
    context_id: contextId,
    status: statusToV03(task.status),
    ...(task.history ? { history: task.history.map(messageToV03Proto) } : {}),
    ...(task.artifacts
      ? { artifacts: task.artifacts.map((a) => ({ ...a, parts: a.parts.map(partToV03) })) }
      : {}),
  };
}

/** A send answer in the v0.3 HTTP+JSON shape (`{ task }` or `{ message }`). */
export function sendResultToV03Proto(result: SendResult): JsonObject {
  return "task" in result
    ? { task: taskToV03Proto(result.task) }
    : { message: messageToV03Proto(result.message) };
}

/** A v1.0 stream event in the v0.3 shape (`final: true` on the status update that ends it). */
export function eventToV03Proto(event: StreamEvent): JsonObject {
  if ("task" in event) return { task: taskToV03Proto(event.task) };
  if ("message" in event) return { message: messageToV03Proto(event.message) };
  if ("statusUpdate" in event) {
    const update = event.statusUpdate;
    const final = isSettled(update.status.state);
    return {
      statusUpdate: {
        ...update,
        status: statusToV03(update.status),
        ...(final ? { final: true } : {}),
      },
    };
  }
  const update = event.artifactUpdate;
  return {
    artifactUpdate: {
      ...update,
      artifact: { ...update.artifact, parts: update.artifact.parts.map(partToV03) },
    },
  };
}

/** A v1.0 push config in the v0.3 HTTP+JSON shape, named `tasks/{id}/pushNotificationConfigs/{configId}`. */
export function pushConfigToV03Proto(config: WirePushConfig): JsonObject {
  const auth = config.authentication;
  return {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${config.id}`,
    pushNotificationConfig: {
      id: config.id,
      url: config.url,
      ...(config.token !== undefined ? { token: config.token } : {}),
      ...(auth
        ? {
            authentication: {
              schemes: [auth.scheme],
              ...(auth.credentials !== undefined ? { credentials: auth.credentials } : {}),
            },
          }
        : {}),
    },
  };
}
