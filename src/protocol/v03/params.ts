/**
 * zod schemas for the parameters of the A2A v0.3 JSON-RPC methods (`message/send`, `tasks/get`,
 * ...), the edge check for v0.3 clients (spec v0.3.0 JSON schema: `kind` discriminators,
 * lowercase roles, file parts with bytes or uri), and the types they give. Unknown fields are
 * ignored. What validated params become in v1.0: json-rpc.ts. Each schema is built on its first
 * call, not at module load.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { idSchema, metadataSchema } from "../wire.ts";

/** A v0.3 file part's file: its bytes or its URI, with an optional media type and name. */
const fileSchema = () =>
  z.union([
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
  ]);

const partSchema = lazy(() =>
  z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("text"), text: z.string(), metadata: metadataSchema().optional() }),
    z.object({
      kind: z.literal("file"),
      file: fileSchema(),
      metadata: metadataSchema().optional(),
    }),
    z.object({
      kind: z.literal("data"),
      data: z.record(z.string(), z.unknown()),
      metadata: metadataSchema().optional(),
    }),
  ]),
);
/** A v0.3 part, validated. */
export type PartV03 = z.infer<ReturnType<typeof partSchema>>;

const messageSchema = lazy(() =>
  z.object({
    kind: z.literal("message"),
    messageId: idSchema(),
    role: z.literal("user", { message: 'a client message must have role "user"' }),
    parts: z.array(partSchema()).min(1, "at least one part is required"),
    contextId: idSchema().optional(),
    taskId: idSchema().optional(),
    metadata: metadataSchema().optional(),
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(idSchema()).optional(),
  }),
);

/** A v0.3 message, validated. */
export type MessageV03 = z.infer<ReturnType<typeof messageSchema>>;

export const messageSendParamsV03 = lazy(() =>
  z.object({
    message: messageSchema(),
    configuration: z
      .object({
        acceptedOutputModes: z.array(z.string().max(255)).max(50).optional(),
        blocking: z.boolean().optional(),
        historyLength: z.number().int().min(0, "must be 0 or more").optional(),
        pushNotificationConfig: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    metadata: metadataSchema().optional(),
  }),
);

/** `message/send` and `message/stream` params, validated. */
export type MessageSendParamsV03 = z.infer<ReturnType<typeof messageSendParamsV03>>;

export const taskQueryParamsV03 = lazy(() =>
  z.object({
    id: idSchema(),
    historyLength: z.number().int().min(0).optional(),
    metadata: metadataSchema().optional(),
  }),
);
export const taskIdParamsV03 = lazy(() =>
  z.object({ id: idSchema(), metadata: metadataSchema().optional() }),
);
export const passThroughV03 = lazy(() => z.object({}).passthrough());

/** tasks/pushNotificationConfig/set: the config itself is checked with the v1.0 rules next. */
export const setPushConfigParamsV03 = lazy(() =>
  z
    .object({ taskId: idSchema(), pushNotificationConfig: z.record(z.string(), z.unknown()) })
    .passthrough(),
);
/** tasks/pushNotificationConfig/get and /list (the config id is optional for get). */
export const pushConfigQueryParamsV03 = lazy(() =>
  z
    .object({
      id: idSchema(),
      pushNotificationConfigId: idSchema().optional(),
      metadata: metadataSchema().optional(),
    })
    .passthrough(),
);
/** tasks/pushNotificationConfig/delete. */
export const deletePushConfigParamsV03 = lazy(() =>
  z
    .object({
      id: idSchema(),
      pushNotificationConfigId: idSchema(),
      metadata: metadataSchema().optional(),
    })
    .passthrough(),
);
