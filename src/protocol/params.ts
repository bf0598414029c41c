/**
 * zod schemas for the parameters of every A2A v1.0 method the harness serves: the edge check
 * that runs once, before anything reaches the task gateway (a2a/methods.ts runs them; the v0.3
 * methods are checked in their own shape and translated, protocol/v03/). Unknown fields are ignored (spec 5.7); fields
 * may also come under their proto names (`history_length`), as ProtoJSON allows (protocol/wire.ts).
 * Each schema is built on its first call, not at module load.
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import {
  idSchema,
  MAX_ID_LENGTH,
  messageSchema,
  metadataSchema,
  protoObject,
  taskStateNameSchema,
} from "./wire.ts";

const historyLength = lazy(() =>
  z.union([
    z.number().int().min(0, "must be 0 or more"),
    z
      .string()
      .regex(/^\d+$/, "must be a non-negative integer")
      .transform((v) => Number(v)),
  ]),
);

/**
 * A task generation (the A2A 1.1 draft's int64): a non-negative integer, as a number or as the
 * decimal string ProtoJSON writes an int64 as (and a query string carries).
 */
const generation = lazy(() =>
  z.union([
    z.number().int().min(0, "must be 0 or more").max(Number.MAX_SAFE_INTEGER),
    z
      .string()
      .regex(/^\d{1,15}$/, "must be a non-negative integer")
      .transform((v) => Number(v)),
  ]),
);

const tenant = lazy(() => z.string().max(256).optional());

/** A client's message: a user's. */
const clientMessage = () =>
  messageSchema().refine((m) => m.role === "ROLE_USER", {
    message: "a client message must have role ROLE_USER",
    path: ["role"],
  });

export const sendMessageParams = lazy(() =>
  protoObject({
    tenant: tenant(),
    message: clientMessage(),
    configuration: protoObject({
      acceptedOutputModes: z.array(z.string().max(255)).max(50).optional(),
      taskPushNotificationConfig: z.record(z.string(), z.unknown()).optional(),
      historyLength: historyLength().optional(),
      returnImmediately: z.boolean().optional(),
      /** Task generations: refused unless the task is at this generation (read when activated). */
      ifGenerationMatch: generation().optional(),
    }).optional(),
    metadata: metadataSchema().optional(),
  }),
);
export type SendMessageParams = z.infer<ReturnType<typeof sendMessageParams>>;

/**
 * `SendLiveMessage` (the A2A 1.1 draft's `StreamRequest`, as the live-messages extension takes it:
 * protocol/live-message.ts): a client message naming the task it is for.
 */
export const liveMessageParams = lazy(() =>
  protoObject({
    tenant: tenant(),
    message: clientMessage().refine((m) => m.taskId !== undefined && m.taskId !== "", {
      message: "a live message names the task it is for (taskId)",
      path: ["taskId"],
    }),
    metadata: metadataSchema().optional(),
  }),
);
export type LiveMessageParams = z.infer<ReturnType<typeof liveMessageParams>>;

export const getTaskParams = lazy(() =>
  protoObject({
    tenant: tenant(),
    id: idSchema(),
    historyLength: historyLength().optional(),
    /** Task generations: hold until the task's generation is past this (read when activated). */
    currentGeneration: generation().optional(),
  }),
);
export type GetTaskParams = z.infer<ReturnType<typeof getTaskParams>>;

export const cancelTaskParams = lazy(() =>
  z.object({ tenant: tenant(), id: idSchema(), metadata: metadataSchema().optional() }),
);
export type CancelTaskParams = z.infer<ReturnType<typeof cancelTaskParams>>;

export const subscribeToTaskParams = lazy(() => z.object({ tenant: tenant(), id: idSchema() }));
export type SubscribeToTaskParams = z.infer<ReturnType<typeof subscribeToTaskParams>>;

/**
 * The four push config methods' parameters (a TaskPushNotificationConfig, or a task id and a
 * config id). The official kits send `task_id` as often as `taskId`; both are read. The config's
 * own fields are checked by push/push-config.ts, with the reason in the -32602.
 */
export const pushConfigParams = lazy(() =>
  protoObject({
    tenant: tenant(),
    taskId: z.string().max(MAX_ID_LENGTH).optional(),
    id: z.string().max(MAX_ID_LENGTH).optional(),
    url: z.unknown().optional(),
    token: z.unknown().optional(),
    authentication: z.unknown().optional(),
    pageSize: z.number().int().min(0).optional(),
    pageToken: z.string().max(512).optional(),
  }),
);
export type PushConfigParams = z.infer<ReturnType<typeof pushConfigParams>>;

export const extendedCardParams = lazy(() => z.object({ tenant: tenant() }).passthrough());

const pageSize = () => {
  const bounded = () =>
    z.number().int().min(1, "must be between 1 and 100").max(100, "must be between 1 and 100");
  return z.union([
    bounded(),
    z
      .string()
      .regex(/^\d+$/, "must be an integer between 1 and 100")
      .transform((v) => Number(v))
      .pipe(bounded()),
  ]);
};

const bool = () => z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

export const listTasksParams = lazy(() =>
  protoObject({
    tenant: tenant(),
    contextId: idSchema().optional(),
    status: taskStateNameSchema().optional(),
    pageSize: pageSize().optional(),
    pageToken: z.string().max(512).optional(),
    historyLength: historyLength().optional(),
    statusTimestampAfter: z.iso
      .datetime({ message: "must be an ISO 8601 timestamp (UTC)" })
      .optional(),
    includeArtifacts: bool().optional(),
  }),
);
export type ListTasksParams = z.infer<ReturnType<typeof listTasksParams>>;
