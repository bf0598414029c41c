/**
 * Between ACTS's abstract data model and the A2A v1.0 wire (ProtoJSON, camelCase): a step's
 * `params` become an operation's request (a message gets a fresh `messageId` when it has none and
 * the `taskId`/`contextId` written beside it; a part's `file`/`fileUrl` becomes `raw` or `url`
 * with `filename` and `mediaType`; `cursor` is `pageToken`; a push config is flattened into the
 * request), and an answer is shown to assertions in the abstract model as well: every part with
 * file bytes also as `file` and with a file URL also as `fileUrl` (`{ name, mediaType, ... }`),
 * the wire members kept. Pure but for the UUIDs.
 */
import { isMap, type Json } from "./json.ts";

/** The abstract operations, by every name the specification and the corpus give them. */
export const OPERATIONS: Readonly<Record<string, OperationKind>> = {
  send_message: "send",
  send_streaming_message: "stream",
  get_task: "get",
  list_tasks: "list",
  cancel_task: "cancel",
  subscribe_to_task: "subscribe",
  get_agent_card: "card",
  get_extended_agent_card: "extendedCard",
  create_push_config: "createPush",
  set_push_notification_config: "createPush",
  create_push_notification_config: "createPush",
  get_push_config: "getPush",
  get_push_notification_config: "getPush",
  list_push_configs: "listPush",
  list_push_notification_configs: "listPush",
  delete_push_config: "deletePush",
  delete_push_notification_config: "deletePush",
};

/** An abstract operation's canonical kind. */
export type OperationKind =
  | "send"
  | "stream"
  | "get"
  | "list"
  | "cancel"
  | "subscribe"
  | "card"
  | "extendedCard"
  | "createPush"
  | "getPush"
  | "listPush"
  | "deletePush";

/** An abstract part as the wire has it. */
function wirePart(part: unknown): unknown {
  if (!isMap(part)) return part;
  const { file, fileUrl, ...rest } = part;
  const source = isMap(file) ? file : isMap(fileUrl) ? fileUrl : undefined;
  if (!source) return part;
  const { name, bytes, ...fields } = source;
  return {
    ...rest,
    ...fields,
    ...(bytes !== undefined ? { raw: bytes } : {}),
    ...(name !== undefined ? { filename: name } : {}),
  };
}

/** A request's message: a messageId of its own, the taskId/contextId given beside it, wire parts. */
function wireMessage(message: unknown, beside: Json): unknown {
  if (!isMap(message)) return message;
  return {
    ...(beside.taskId !== undefined ? { taskId: beside.taskId } : {}),
    ...(beside.contextId !== undefined ? { contextId: beside.contextId } : {}),
    messageId: crypto.randomUUID(),
    ...message,
    ...(Array.isArray(message.parts) ? { parts: message.parts.map(wirePart) } : {}),
  };
}

/** A step's params as the request of operation `kind` (v1.0 field names). */
export function wireParams(kind: OperationKind, params: Json): Json {
  switch (kind) {
    case "send":
    case "stream": {
      const { taskId: _t, contextId: _c, message, ...rest } = params;
      return { ...rest, message: wireMessage(message, params) };
    }
    case "list": {
      const { cursor, ...rest } = params;
      return { ...rest, ...(cursor !== undefined ? { pageToken: cursor } : {}) };
    }
    case "createPush": {
      const { pushNotificationConfig, configId, ...rest } = params;
      return {
        ...rest,
        ...(isMap(pushNotificationConfig) ? pushNotificationConfig : {}),
        ...(configId !== undefined ? { id: configId } : {}),
      };
    }
    default:
      return params;
  }
}

/** A wire part with its abstract views added. */
function viewPart(part: unknown): unknown {
  if (!isMap(part)) return part;
  const meta = {
    ...(part.filename !== undefined ? { name: part.filename } : {}),
    ...(part.mediaType !== undefined ? { mediaType: part.mediaType } : {}),
  };
  if (part.raw !== undefined) return { ...part, file: { ...meta, bytes: part.raw } };
  if (part.url !== undefined) return { ...part, fileUrl: { ...meta, url: part.url } };
  return part;
}

/** An answer as assertions see it: the wire, every part with its abstract views. */
export function abstractView(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(abstractView);
  if (!isMap(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "parts" && Array.isArray(v) ? v.map((p) => viewPart(abstractView(p))) : abstractView(v),
    ]),
  );
}
