/**
 * zod schemas for the parameters of the A2A v0.3 JSON-RPC methods (`message/send`, `tasks/get`,
 * ...), the edge check for v0.3 clients (spec v0.3.0 JSON schema: `kind` discriminators,
 * lowercase roles, file parts with bytes or uri), and the types they give. Unknown fields are
 * ignored. What validated params become in v1.0: json-rpc.ts.
 */
import { z } from "zod";
import { Id } from "../wire.ts";

const Metadata = z.record(z.string(), z.unknown());

const TextPart = z.object({
  kind: z.literal("text"),
  text: z.string(),
  metadata: Metadata.optional(),
});
const FilePart = z.object({
  kind: z.literal("file"),
  file: z.union([
    z.object({
      bytes: z.base64("must be base64"),
      mimeType: z.string().max(255).optional(),
      name: z.string().max(1024).optional(),
    }),
    z.object({
      uri: z.url(),
      mimeType: z.string().max(255).optional(),
      name: z.string().max(1024).optional(),
    }),
  ]),
  metadata: Metadata.optional(),
});
const DataPart = z.object({
  kind: z.literal("data"),
  data: z.record(z.string(), z.unknown()),
  metadata: Metadata.optional(),
});

const PartV03 = z.discriminatedUnion("kind", [TextPart, FilePart, DataPart]);
/** A v0.3 part, validated. */
export type PartV03 = z.infer<typeof PartV03>;

export const MessageV03 = z.object({
  kind: z.literal("message"),
  messageId: Id,
  role: z.literal("user", { message: 'a client message must have role "user"' }),
  parts: z.array(PartV03).min(1, "at least one part is required"),
  contextId: Id.optional(),
  taskId: Id.optional(),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(Id).optional(),
});

/** A v0.3 message, validated. */
export type MessageV03 = z.infer<typeof MessageV03>;

export const MessageSendParamsV03 = z.object({
  message: MessageV03,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string().max(255)).max(50).optional(),
      blocking: z.boolean().optional(),
      historyLength: z.number().int().min(0, "must be 0 or more").optional(),
      pushNotificationConfig: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  metadata: Metadata.optional(),
});

/** `message/send` and `message/stream` params, validated. */
export type MessageSendParamsV03 = z.infer<typeof MessageSendParamsV03>;

export const TaskQueryParamsV03 = z.object({
  id: Id,
  historyLength: z.number().int().min(0).optional(),
  metadata: Metadata.optional(),
});
export const TaskIdParamsV03 = z.object({ id: Id, metadata: Metadata.optional() });
export const PassThroughV03 = z.object({}).passthrough();

/** tasks/pushNotificationConfig/set: the config itself is checked with the v1.0 rules next. */
export const SetPushConfigParamsV03 = z
  .object({ taskId: Id, pushNotificationConfig: z.record(z.string(), z.unknown()) })
  .passthrough();
/** tasks/pushNotificationConfig/get and /list (the config id is optional for get). */
export const PushConfigQueryParamsV03 = z
  .object({ id: Id, pushNotificationConfigId: Id.optional(), metadata: Metadata.optional() })
  .passthrough();
/** tasks/pushNotificationConfig/delete. */
export const DeletePushConfigParamsV03 = z
  .object({ id: Id, pushNotificationConfigId: Id, metadata: Metadata.optional() })
  .passthrough();
