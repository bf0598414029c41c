/**
 * The A2A v0.3 JSON-RPC dialect (the spec's JSON data objects: `kind` discriminators, lowercase
 * roles, states as words, file parts as `{ file: { bytes | uri } }`) to and from the v1.0 wire
 * shapes the harness works in, as plain JSON: what the @a2a-js/sdk's v0.3 compat layer does
 * through its classes, without them. It is also the body of a v0.3 push notification. Requests
 * arrive validated by the v0.3 schemas (params.ts) and typed by them. The HTTP+JSON binding's
 * v0.3 dialect is ProtoJSON instead: http-json.ts. Pure: no I/O.
 */

import { isJsonObject, type JsonObject } from "../json-shape.ts";
import type { SendMessageParams } from "../params.ts";
import { isSettled, stateWord } from "../task-states.ts";
import type {
  Artifact,
  Message,
  Part,
  SendResult,
  StreamEvent,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
  WirePushConfig,
} from "../wire.ts";
import { given, returnImmediately } from "./common.ts";
import type { MessageSendParamsV03, MessageV03, PartV03 } from "./params.ts";

/** The metadata flag of a v0.3 data part that wraps a v1.0 value which is not an object. */
const DATA_PART_COMPAT_FLAG = "data_part_compat";

const some = (v: readonly unknown[] | undefined) => v !== undefined && v.length > 0;

// --- v0.3 -> v1.0 (requests) ---

/** A data part's value and metadata, unwrapped when the compat flag says it wraps a non-object. */
function dataFromV03(data: JsonObject, meta: JsonObject | undefined): Part {
  if (meta?.[DATA_PART_COMPAT_FLAG] !== true) return { data, ...(meta ? { metadata: meta } : {}) };
  const { [DATA_PART_COMPAT_FLAG]: _flag, ...rest } = meta;
  const metadata = Object.keys(rest).length > 0 ? rest : undefined;
  return { data: "value" in data ? data.value : data, ...(metadata ? { metadata } : {}) };
}

function partFromV03(part: PartV03): Part {
  const meta = part.metadata ? { ...part.metadata } : undefined;
  if (part.kind === "text") return { text: part.text, ...(meta ? { metadata: meta } : {}) };
  if (part.kind === "data") return dataFromV03(part.data, meta);
  const { file } = part;
  const common = {
    ...(given(file.mimeType) ? { mediaType: file.mimeType } : {}),
    ...(given(file.name) ? { filename: file.name } : {}),
    ...(meta ? { metadata: meta } : {}),
  };
  return "bytes" in file ? { raw: file.bytes, ...common } : { url: file.uri, ...common };
}

/** A v0.3 message (validated) as a v1.0 wire message. */
export function messageFromV03(message: MessageV03): Message {
  const { kind: _kind, role, parts, ...rest } = message;
  return {
    ...rest,
    role: role === "user" ? "ROLE_USER" : "ROLE_AGENT",
    parts: parts.map(partFromV03),
  };
}

/**
 * A v0.3 push notification config as the v1.0 flat config (`authentication.schemes[0]`); the
 * fields are checked in v1.0 terms after (push/push-config.ts).
 */
export function pushConfigFromV03(raw: JsonObject, taskId?: string): JsonObject {
  const auth = isJsonObject(raw.authentication) ? raw.authentication : undefined;
  const schemes = Array.isArray(auth?.schemes) ? auth.schemes : [];
  return {
    ...(taskId !== undefined ? { taskId } : {}),
    ...(given(raw.id) ? { id: raw.id } : {}),
    url: raw.url,
    ...(given(raw.token) ? { token: raw.token } : {}),
    ...(auth
      ? {
          authentication: {
            scheme: schemes[0] ?? "",
            ...(given(auth.credentials) ? { credentials: auth.credentials } : {}),
          },
        }
      : {}),
  };
}

/**
 * `message/send` and `message/stream` params as a v1.0 SendMessageRequest. A configuration
 * without `blocking` returns at once (as the SDK's translation); no configuration blocks.
 */
export function sendParamsFromV03(params: MessageSendParamsV03): SendMessageParams {
  const config = params.configuration;
  const push = config?.pushNotificationConfig;
  return {
    message: messageFromV03(params.message),
    ...(config
      ? {
          configuration: {
            ...(config.acceptedOutputModes !== undefined
              ? { acceptedOutputModes: config.acceptedOutputModes }
              : {}),
            ...(push ? { taskPushNotificationConfig: pushConfigFromV03(push) } : {}),
            ...(config.historyLength !== undefined ? { historyLength: config.historyLength } : {}),
            returnImmediately: returnImmediately(config.blocking),
          },
        }
      : {}),
    ...(params.metadata !== undefined ? { metadata: params.metadata } : {}),
  };
}

// --- v1.0 -> v0.3 (answers) ---

function fileToV03(part: Part): JsonObject {
  return {
    ...(part.raw !== undefined ? { bytes: part.raw } : { uri: part.url }),
    ...(given(part.mediaType) ? { mimeType: part.mediaType } : {}),
    ...(given(part.filename) ? { name: part.filename } : {}),
  };
}

function partToV03(part: Part): JsonObject {
  const meta = part.metadata === undefined ? undefined : { ...part.metadata };
  const withMeta = (out: JsonObject) => (meta ? { ...out, metadata: meta } : out);
  if (part.text !== undefined) return withMeta({ kind: "text", text: part.text });
  if (part.raw !== undefined || part.url !== undefined)
    return withMeta({ kind: "file", file: fileToV03(part) });
  if (isJsonObject(part.data)) return withMeta({ kind: "data", data: part.data });
  return {
    kind: "data",
    data: { value: part.data ?? null },
    metadata: { ...meta, [DATA_PART_COMPAT_FLAG]: true },
  };
}

/** A v1.0 message in the v0.3 shape. */
export function messageToV03(message: Message): JsonObject {
  return {
    kind: "message",
    messageId: message.messageId,
    role: message.role === "ROLE_USER" ? "user" : "agent",
    parts: message.parts.map(partToV03),
    ...(given(message.contextId) ? { contextId: message.contextId } : {}),
    ...(given(message.taskId) ? { taskId: message.taskId } : {}),
    ...(message.metadata !== undefined ? { metadata: message.metadata } : {}),
    ...(some(message.extensions) ? { extensions: message.extensions } : {}),
    ...(some(message.referenceTaskIds) ? { referenceTaskIds: message.referenceTaskIds } : {}),
  };
}

function statusToV03(status: TaskStatus): JsonObject {
  return {
    state: stateWord(status.state),
    ...(status.message ? { message: messageToV03(status.message) } : {}),
    ...(given(status.timestamp) ? { timestamp: status.timestamp } : {}),
  };
}

function artifactToV03(artifact: Artifact & { extensions?: string[] }): JsonObject {
  return {
    artifactId: artifact.artifactId,
    parts: artifact.parts.map(partToV03),
    ...(given(artifact.name) ? { name: artifact.name } : {}),
    ...(given(artifact.description) ? { description: artifact.description } : {}),
    ...(artifact.metadata !== undefined ? { metadata: artifact.metadata } : {}),
    ...(some(artifact.extensions) ? { extensions: artifact.extensions } : {}),
  };
}

/** A v1.0 task in the v0.3 shape (also the body of a v0.3 push notification). */
export function taskToV03(task: Task): JsonObject {
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: statusToV03(task.status),
    ...(some(task.history) ? { history: task.history?.map(messageToV03) } : {}),
    ...(some(task.artifacts) ? { artifacts: task.artifacts?.map(artifactToV03) } : {}),
    ...(task.metadata !== undefined ? { metadata: task.metadata } : {}),
  };
}

function statusUpdateToV03(update: TaskStatusUpdateEvent): JsonObject {
  return {
    kind: "status-update",
    taskId: update.taskId,
    contextId: update.contextId,
    status: statusToV03(update.status),
    // Spec 0.3.0 §7.2: `final` marks the last event of the interaction, a pause for input too.
    final: isSettled(update.status.state),
    ...(update.metadata !== undefined ? { metadata: update.metadata } : {}),
  };
}

function artifactUpdateToV03(update: TaskArtifactUpdateEvent): JsonObject {
  return {
    kind: "artifact-update",
    taskId: update.taskId,
    contextId: update.contextId,
    artifact: artifactToV03(update.artifact),
    append: update.append ?? false,
    lastChunk: update.lastChunk ?? false,
    ...(update.metadata !== undefined ? { metadata: update.metadata } : {}),
  };
}

/** A v1.0 stream event (StreamResponse oneof) as the v0.3 `result` of a stream. */
export function eventToV03(event: StreamEvent): JsonObject {
  if ("task" in event) return taskToV03(event.task);
  if ("message" in event) return messageToV03(event.message);
  if ("statusUpdate" in event) return statusUpdateToV03(event.statusUpdate);
  return artifactUpdateToV03(event.artifactUpdate);
}

/** A v1.0 send answer (`{ task }` or `{ message }`) as the v0.3 `result`. */
export function sendResultToV03(result: SendResult): JsonObject {
  return "task" in result ? taskToV03(result.task) : messageToV03(result.message);
}

/** A v1.0 TaskPushNotificationConfig in the v0.3 shape `{ taskId, pushNotificationConfig }`. */
export function pushConfigToV03(config: WirePushConfig): JsonObject {
  const auth = config.authentication;
  return {
    taskId: config.taskId,
    pushNotificationConfig: {
      url: config.url,
      ...(given(config.id) ? { id: config.id } : {}),
      ...(given(config.token) ? { token: config.token } : {}),
      ...(auth
        ? {
            authentication: {
              schemes: given(auth.scheme) ? [auth.scheme] : [],
              ...(given(auth.credentials) ? { credentials: auth.credentials } : {}),
            },
          }
        : {}),
    },
  };
}
