/**
 * The A2A v0.3 JSON-RPC wire (`kind` discriminators, lowercase roles and states, file parts as
 * `{ file: { bytes | uri } }`) to and from the v1.0 wire shapes the harness works in, as plain
 * JSON: what the @a2a-js/sdk's v0.3 compat layer does through its classes, without them. Inputs
 * were validated by the v0.3 schemas (a2a/params-v03.ts) and are not checked again. Pure: no I/O.
 */
import { isSettled, stateWord } from "./task-states.ts";
import type {
  Artifact,
  Message,
  Part,
  StreamEvent,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
} from "./wire.ts";

type Json = Record<string, unknown>;

/** The metadata flag of a v0.3 data part that wraps a v1.0 value which is not an object. */
const DATA_PART_COMPAT_FLAG = "data_part_compat";

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown) => v !== undefined && v !== null && v !== "";
const some = (v: readonly unknown[] | undefined) => v !== undefined && v.length > 0;

// --- v0.3 -> v1.0 (requests) ---

function partFromV03(raw: Json): Part {
  const meta = isObject(raw.metadata) ? { ...raw.metadata } : undefined;
  if (raw.kind === "text") return { text: String(raw.text), ...(meta ? { metadata: meta } : {}) };
  if (raw.kind === "file") {
    const file = raw.file as Json;
    const common = {
      ...(nonEmpty(file.mimeType) ? { mediaType: String(file.mimeType) } : {}),
      ...(nonEmpty(file.name) ? { filename: String(file.name) } : {}),
      ...(meta ? { metadata: meta } : {}),
    };
    return "bytes" in file
      ? { raw: String(file.bytes), ...common }
      : { url: String(file.uri), ...common };
  }
  let data: unknown = raw.data;
  let metadata = meta;
  if (metadata?.[DATA_PART_COMPAT_FLAG] === true) {
    if (isObject(data) && "value" in data) data = data.value;
    delete metadata[DATA_PART_COMPAT_FLAG];
    if (Object.keys(metadata).length === 0) metadata = undefined;
  }
  return { data, ...(metadata ? { metadata } : {}) };
}

/** A v0.3 message (validated) as a v1.0 wire message. */
export function messageFromV03(raw: Json): Message {
  const { kind: _kind, role, parts, ...rest } = raw;
  return {
    ...(rest as Omit<Message, "role" | "parts">),
    role: role === "user" ? "ROLE_USER" : "ROLE_AGENT",
    parts: (parts as Json[]).map(partFromV03),
  };
}

/** A v0.3 push notification config as the v1.0 flat config (`authentication.schemes[0]`). */
export function pushConfigFromV03(raw: Json, taskId?: string): Json {
  const auth = isObject(raw.authentication) ? raw.authentication : undefined;
  const schemes = Array.isArray(auth?.schemes) ? auth.schemes : [];
  return {
    ...(taskId !== undefined ? { taskId } : {}),
    ...(nonEmpty(raw.id) ? { id: raw.id } : {}),
    url: raw.url,
    ...(nonEmpty(raw.token) ? { token: raw.token } : {}),
    ...(auth
      ? {
          authentication: {
            scheme: schemes[0] ?? "",
            ...(nonEmpty(auth.credentials) ? { credentials: auth.credentials } : {}),
          },
        }
      : {}),
  };
}

/**
 * `message/send` and `message/stream` params as a v1.0 SendMessageRequest. A configuration
 * without `blocking` returns at once (as the SDK's translation); no configuration blocks.
 */
export function sendParamsFromV03(params: Json): Json {
  const config = isObject(params.configuration) ? params.configuration : undefined;
  const push = isObject(config?.pushNotificationConfig) ? config.pushNotificationConfig : undefined;
  return {
    message: messageFromV03(params.message as Json),
    ...(config
      ? {
          configuration: {
            ...(config.acceptedOutputModes !== undefined
              ? { acceptedOutputModes: config.acceptedOutputModes }
              : {}),
            ...(push ? { taskPushNotificationConfig: pushConfigFromV03(push) } : {}),
            ...(config.historyLength !== undefined ? { historyLength: config.historyLength } : {}),
            returnImmediately: config.blocking === undefined ? true : config.blocking !== true,
          },
        }
      : {}),
    ...(params.metadata !== undefined ? { metadata: params.metadata } : {}),
  };
}

// --- v1.0 -> v0.3 (answers) ---

function partToV03(part: Part): Json {
  const meta = part.metadata === undefined ? undefined : { ...part.metadata };
  const withMeta = (out: Json) => (meta ? { ...out, metadata: meta } : out);
  if (part.text !== undefined) return withMeta({ kind: "text", text: part.text });
  if (part.raw !== undefined || part.url !== undefined) {
    const file: Json = part.raw !== undefined ? { bytes: part.raw } : { uri: part.url as string };
    if (nonEmpty(part.mediaType)) file.mimeType = part.mediaType;
    if (nonEmpty(part.filename)) file.name = part.filename;
    return withMeta({ kind: "file", file });
  }
  if (isObject(part.data)) return withMeta({ kind: "data", data: part.data });
  return {
    kind: "data",
    data: { value: part.data ?? null },
    metadata: { ...meta, [DATA_PART_COMPAT_FLAG]: true },
  };
}

/** A v1.0 message in the v0.3 shape. */
export function messageToV03(message: Message): Json {
  return {
    kind: "message",
    messageId: message.messageId,
    role: message.role === "ROLE_USER" ? "user" : "agent",
    parts: message.parts.map(partToV03),
    ...(nonEmpty(message.contextId) ? { contextId: message.contextId } : {}),
    ...(nonEmpty(message.taskId) ? { taskId: message.taskId } : {}),
    ...(message.metadata !== undefined ? { metadata: message.metadata } : {}),
    ...(some(message.extensions) ? { extensions: message.extensions } : {}),
    ...(some(message.referenceTaskIds) ? { referenceTaskIds: message.referenceTaskIds } : {}),
  };
}

function statusToV03(status: TaskStatus): Json {
  return {
    state: stateWord(status.state),
    ...(status.message ? { message: messageToV03(status.message) } : {}),
    ...(nonEmpty(status.timestamp) ? { timestamp: status.timestamp } : {}),
  };
}

function artifactToV03(artifact: Artifact & { extensions?: string[] }): Json {
  return {
    artifactId: artifact.artifactId,
    parts: artifact.parts.map(partToV03),
    ...(nonEmpty(artifact.name) ? { name: artifact.name } : {}),
    ...(nonEmpty(artifact.description) ? { description: artifact.description } : {}),
    ...(artifact.metadata !== undefined ? { metadata: artifact.metadata } : {}),
    ...(some(artifact.extensions) ? { extensions: artifact.extensions } : {}),
  };
}

/** A v1.0 task in the v0.3 shape (also the body of a v0.3 push notification). */
export function taskToV03(task: Task): Json {
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

function statusUpdateToV03(update: TaskStatusUpdateEvent): Json {
  const status = statusToV03(update.status);
  return {
    kind: "status-update",
    taskId: update.taskId,
    contextId: update.contextId,
    status,
    // Spec 0.3.0 §7.2: `final` marks the last event of the interaction, a pause for input too.
    final: isSettled(update.status.state),
    ...(update.metadata !== undefined ? { metadata: update.metadata } : {}),
  };
}

function artifactUpdateToV03(update: TaskArtifactUpdateEvent): Json {
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
export function eventToV03(event: StreamEvent): Json {
  if ("task" in event) return taskToV03(event.task);
  if ("message" in event) return messageToV03(event.message);
  if ("statusUpdate" in event) return statusUpdateToV03(event.statusUpdate);
  return artifactUpdateToV03(event.artifactUpdate);
}

/** A v1.0 send answer (`{ task }` or `{ message }`) as the v0.3 `result`. */
export function sendResultToV03(result: { task: Task } | { message: Message }): Json {
  return "task" in result ? taskToV03(result.task) : messageToV03(result.message);
}

/** A v1.0 TaskPushNotificationConfig in the v0.3 shape `{ taskId, pushNotificationConfig }`. */
export function pushConfigToV03(config: Json): Json {
  const auth = isObject(config.authentication) ? config.authentication : undefined;
  return {
    taskId: config.taskId,
    pushNotificationConfig: {
      url: config.url,
      ...(nonEmpty(config.id) ? { id: config.id } : {}),
      ...(nonEmpty(config.token) ? { token: config.token } : {}),
      ...(auth
        ? {
            authentication: {
              schemes: nonEmpty(auth.scheme) ? [auth.scheme] : [],
              ...(nonEmpty(auth.credentials) ? { credentials: auth.credentials } : {}),
            },
          }
        : {}),
    },
  };
}
