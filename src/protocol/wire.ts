/**
 * The A2A v1.0 JSON wire shapes the harness stores and streams (ProtoJSON: camelCase fields,
 * SCREAMING_SNAKE enums), as zod schemas that validate input at the edge (built on first use) and
 * as the types the task object works with. Pure: no I/O.
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import { isJsonObject } from "./json-shape.ts";
import { TASK_STATES } from "./task-states.ts";

/** Longest id (task, context, message) accepted from a client. */
export const MAX_ID_LENGTH = 256;

/** An id a client gives (task, context, message): trimmed, not empty, bounded. */
export const idSchema = lazy(() =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
);

/** A task state on the wire (the states and their other spellings: task-states.ts). */
export type TaskStateName = (typeof TASK_STATES)[number];
export const taskStateNameSchema = lazy(() => z.enum(TASK_STATES));

/** Metadata: a JSON object of any fields. */
export const metadataSchema = lazy(() => z.record(z.string(), z.unknown()));

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A ProtoJSON object schema: like `z.object`, and it also takes each field under its proto name
 * (`context_id` for `contextId`), as ProtoJSON parsers must (protobuf.dev JSON mapping, adopted
 * by spec 1.0.1 §5.5); the camelCase name wins when both are sent. Only the object's own fields
 * are renamed, never the keys of maps inside it (metadata, data).
 */
export function protoObject<T extends z.ZodRawShape>(shape: T) {
  const names = new Map(
    Object.keys(shape)
      .filter((key) => /[A-Z]/.test(key))
      .map((key) => [snakeCase(key), key]),
  );
  return z.preprocess((value) => {
    if (!isJsonObject(value)) return value;
    const input = value;
    const renamed: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(input)) {
      const camel = names.get(key);
      if (camel === undefined) renamed[key] = item;
      else if (!Object.hasOwn(input, camel)) renamed[camel] = item;
    }
    return renamed;
  }, z.object(shape));
}

const partSchema = lazy(() =>
  protoObject({
    text: z.string().optional(),
    raw: z.base64("must be base64").optional(),
    url: z.url().optional(),
    data: z.unknown().optional(),
    metadata: metadataSchema().optional(),
    filename: z.string().max(1024).optional(),
    mediaType: z.string().max(255).optional(),
  }).refine(
    (p) =>
      [p.text, p.raw, p.url, p.data].filter((v) => v !== undefined).length === 1 &&
      (p.data === undefined || p.data !== null),
    { message: "a part carries exactly one of text, raw, url or data" },
  ),
);
export type Part = z.infer<ReturnType<typeof partSchema>>;

/** A message as a client sends it, checked at the edge. */
export const messageSchema = lazy(() =>
  protoObject({
    messageId: idSchema(),
    contextId: idSchema().optional(),
    taskId: idSchema().optional(),
    role: z.enum(["ROLE_USER", "ROLE_AGENT"]),
    parts: z.array(partSchema()).min(1, "at least one part is required"),
    metadata: metadataSchema().optional(),
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(idSchema()).optional(),
  }),
);
export type Message = z.infer<ReturnType<typeof messageSchema>>;

export interface TaskStatus {
  state: TaskStateName;
  message?: Message;
  timestamp: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Record<string, unknown>;
  /**
   * The task's generation (the A2A 1.1 draft's int64, as ProtoJSON writes it: a decimal string),
   * only for a caller that activated task generations (a2a/extension-activation.ts).
   */
  generation?: string;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: Record<string, unknown>;
  /**
   * The task's generation after this update (the A2A 1.1 draft's int64, as ProtoJSON writes it: a decimal string),
   * only for a caller that activated task generations (a2a/extension-activation.ts).
   */
  generation?: string;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
  /**
   * The task's generation after this update (the A2A 1.1 draft's int64, as ProtoJSON writes it: a decimal string),
   * only for a caller that activated task generations (a2a/extension-activation.ts).
   */
  generation?: string;
}

/** One entry of a stream: the v1.0 `StreamResponse` oneof. */
export type StreamEvent =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** What a send answers (`SendMessageResponse`): the task, or a Message when the agent answered without one. */
export type SendResult = { task: Task } | { message: Message };

/** A push notification config (`TaskPushNotificationConfig`). */
export interface WirePushConfig {
  taskId: string;
  id: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** A stream entry with its position in the task's event log (the SSE `id`). */
export interface SequencedEvent {
  seq: number;
  event: StreamEvent;
}
