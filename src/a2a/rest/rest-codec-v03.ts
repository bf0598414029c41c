/**
 * The v0.3 HTTP+JSON wire format (the v0.3 protobuf JSON that the @a2a-js/sdk legacy REST client
 * speaks) to and from the v1.0 wire shapes the harness works in. They differ little: v0.3
 * messages carry `content` (not `parts`), file parts are `{ file: { fileWithBytes | fileWithUri,
 * mimeType } }`, data parts nest `{ data: { data } }`, send configurations say `blocking`, and
 * status updates carry `final`. Fields may come under their proto names (`message_id`,
 * `file_with_uri`), as ProtoJSON parsers accept. Answers name a task's and a message's ids by
 * their proto names (`context_id`, `message_id`, `task_id`): every ProtoJSON parser (the SDKs')
 * reads those, and the v0.3 kit's REST client reads only those. Pure: no I/O.
 */

import { isSettled, stateToV03Proto } from "../../protocol/task-states.ts";
import type { Message, Part, StreamEvent, Task } from "../../protocol/wire.ts";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};

/** A field by its JSON name, else by its proto name (ProtoJSON parsers accept both). */
export const protoField = (o: Json, name: string): unknown =>
  o[name] ?? o[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];

function partFromV03(raw: unknown): Json {
  const p = obj(raw);
  const meta = p.metadata === undefined ? {} : { metadata: p.metadata };
  if (typeof p.text === "string") return { text: p.text, ...meta };
  if (p.file !== undefined) {
    const f = obj(p.file);
    const mime = protoField(f, "mimeType");
    const media = typeof mime === "string" && mime !== "" ? { mediaType: mime } : {};
    const name = typeof f.name === "string" ? { filename: f.name } : {};
    const bytes = protoField(f, "fileWithBytes");
    if (bytes !== undefined) return { raw: bytes, ...media, ...name, ...meta };
    return { url: protoField(f, "fileWithUri"), ...media, ...name, ...meta };
  }
  if (p.data !== undefined) return { data: obj(p.data).data ?? p.data, ...meta };
  return p;
}

function partToV03(part: Part): Json {
  const meta = part.metadata === undefined ? {} : { metadata: part.metadata };
  if (part.text !== undefined) return { text: part.text, ...meta };
  if (part.data !== undefined) return { data: { data: part.data }, ...meta };
  const mime = part.mediaType ? { mimeType: part.mediaType } : {};
  if (part.raw !== undefined) return { file: { fileWithBytes: part.raw, ...mime }, ...meta };
  return { file: { fileWithUri: part.url, ...mime }, ...meta };
}

/** A v0.3 REST message as a v1.0 wire message (left unvalidated; params.ts checks it next). */
export function messageFromV03(raw: unknown): Json {
  const { content, parts, ...rest } = obj(raw);
  const list = Array.isArray(content) ? content : Array.isArray(parts) ? parts : undefined;
  return { ...rest, ...(list ? { parts: list.map(partFromV03) } : {}) };
}

/** A v0.3 REST `message:send` body as a v1.0 SendMessageRequest (unvalidated). */
export function sendRequestFromV03(raw: unknown): Json {
  const body = obj(raw);
  if (body.configuration === undefined)
    // No configuration: the defaults, as message/send over JSON-RPC (it blocks).
    return { message: messageFromV03(body.message ?? body.request), ...metadataOf(body) };
  const config = obj(body.configuration);
  const blocking = config.blocking;
  const accepted = protoField(config, "acceptedOutputModes");
  const historyLength = protoField(config, "historyLength");
  const push = protoField(config, "pushNotification");
  return {
    message: messageFromV03(body.message ?? body.request),
    configuration: {
      ...(Array.isArray(accepted) ? { acceptedOutputModes: accepted } : {}),
      ...(typeof historyLength === "number" ? { historyLength } : {}),
      ...(push !== undefined ? { taskPushNotificationConfig: obj(push) } : {}),
      // As the SDK's v0.3 translation: a configuration without `blocking` returns at once.
      returnImmediately: blocking === undefined ? true : blocking !== true,
    },
    ...metadataOf(body),
  };
}

const metadataOf = (body: Json) => (body.metadata !== undefined ? { metadata: body.metadata } : {});

/** A v1.0 wire message in the v0.3 REST shape. */
export function messageToV03(message: Message): Json {
  const { parts, messageId, contextId, taskId, ...rest } = message;
  return {
    message_id: messageId,
    ...(contextId === undefined ? {} : { context_id: contextId }),
    ...(taskId === undefined ? {} : { task_id: taskId }),
    ...rest,
    content: parts.map(partToV03),
  };
}

/** A v1.0 wire task in the v0.3 REST shape. */
export function taskToV03(task: Task): Json {
  const { contextId, ...rest } = task;
  return {
    ...rest,
    context_id: contextId,
    status: statusToV03(task.status),
    ...(task.history ? { history: task.history.map(messageToV03) } : {}),
    ...(task.artifacts
      ? { artifacts: task.artifacts.map((a) => ({ ...a, parts: a.parts.map(partToV03) })) }
      : {}),
  };
}

function statusToV03(status: Task["status"]): Json {
  return {
    ...status,
    state: stateToV03Proto(status.state),
    ...(status.message ? { message: messageToV03(status.message) } : {}),
  };
}

/** A v1.0 stream event in the v0.3 REST shape (`final: true` on the status update that ends it). */
export function eventToV03(event: StreamEvent): Json {
  if ("task" in event) return { task: taskToV03(event.task) };
  if ("message" in event) return { message: messageToV03(event.message) };
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
