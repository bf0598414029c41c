/**
 * zod schemas for the parameters of every A2A v1.0 method the harness serves: the edge check
 * that runs once, before anything reaches the task gateway (a2a/methods.ts runs them; the v0.3
 * methods are checked in their own shape and translated, protocol/v03/). Unknown fields are ignored (spec 5.7); fields
 * may also come under their proto names (`history_length`), as ProtoJSON allows (protocol/wire.ts).
 */
import { z } from "zod";
import { Id, MAX_ID_LENGTH, Message, protoObject, TaskStateName } from "./wire.ts";

const HistoryLength = z.union([
  z.number().int().min(0, "must be 0 or more"),
  z
    .string()
    .regex(/^\d+$/, "must be a non-negative integer")
    .transform((v) => Number(v)),
]);

/**
 * A task generation (the A2A 1.1 draft's int64): a non-negative integer, as a number or as the
 * decimal string ProtoJSON writes an int64 as (and a query string carries).
 */
const Generation = z.union([
  z.number().int().min(0, "must be 0 or more").max(Number.MAX_SAFE_INTEGER),
  z
    .string()
    .regex(/^\d{1,15}$/, "must be a non-negative integer")
    .transform((v) => Number(v)),
]);

const Metadata = z.record(z.string(), z.unknown());
const Tenant = z.string().max(256).optional();

export const SendMessageParams = protoObject({
  tenant: Tenant,
  message: Message.refine((m) => m.role === "ROLE_USER", {
    message: "a client message must have role ROLE_USER",
    path: ["role"],
  }),
  configuration: protoObject({
    acceptedOutputModes: z.array(z.string().max(255)).max(50).optional(),
    taskPushNotificationConfig: z.record(z.string(), z.unknown()).optional(),
    historyLength: HistoryLength.optional(),
    returnImmediately: z.boolean().optional(),
    /** Task generations: refused unless the task is at this generation (read when activated). */
    ifGenerationMatch: Generation.optional(),
  }).optional(),
  metadata: Metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

/**
 * `SendLiveMessage` (the A2A 1.1 draft's `StreamRequest`, as the live-messages extension takes it:
 * protocol/live-message.ts): a client message naming the task it is for.
 */
export const LiveMessageParams = protoObject({
  tenant: Tenant,
  message: Message.refine((m) => m.role === "ROLE_USER", {
    message: "a client message must have role ROLE_USER",
    path: ["role"],
  }).refine((m) => m.taskId !== undefined && m.taskId !== "", {
    message: "a live message names the task it is for (taskId)",
    path: ["taskId"],
  }),
  metadata: Metadata.optional(),
});
export type LiveMessageParams = z.infer<typeof LiveMessageParams>;

export const GetTaskParams = protoObject({
  tenant: Tenant,
  id: Id,
  historyLength: HistoryLength.optional(),
  /** Task generations: hold until the task's generation is past this (read when activated). */
  currentGeneration: Generation.optional(),
});
export type GetTaskParams = z.infer<typeof GetTaskParams>;

export const CancelTaskParams = z.object({ tenant: Tenant, id: Id, metadata: Metadata.optional() });
export type CancelTaskParams = z.infer<typeof CancelTaskParams>;

export const SubscribeToTaskParams = z.object({ tenant: Tenant, id: Id });
export type SubscribeToTaskParams = z.infer<typeof SubscribeToTaskParams>;

/**
 * The four push config methods' parameters (a TaskPushNotificationConfig, or a task id and a
 * config id). The official kits send `task_id` as often as `taskId`; both are read. The config's
 * own fields are checked by push/push-config.ts, with the reason in the -32602.
 */
export const PushConfigParams = protoObject({
  tenant: Tenant,
  taskId: z.string().max(MAX_ID_LENGTH).optional(),
  id: z.string().max(MAX_ID_LENGTH).optional(),
  url: z.unknown().optional(),
  token: z.unknown().optional(),
  authentication: z.unknown().optional(),
  pageSize: z.number().int().min(0).optional(),
  pageToken: z.string().max(512).optional(),
});
export type PushConfigParams = z.infer<typeof PushConfigParams>;

export const ExtendedCardParams = z.object({ tenant: Tenant }).passthrough();

const PageSize = z.union([
  z.number().int().min(1, "must be between 1 and 100").max(100, "must be between 1 and 100"),
  z
    .string()
    .regex(/^\d+$/, "must be an integer between 1 and 100")
    .transform((v) => Number(v))
    .pipe(
      z.number().int().min(1, "must be between 1 and 100").max(100, "must be between 1 and 100"),
    ),
]);

const Bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

export const ListTasksParams = protoObject({
  tenant: Tenant,
  contextId: Id.optional(),
  status: TaskStateName.optional(),
  pageSize: PageSize.optional(),
  pageToken: z.string().max(512).optional(),
  historyLength: HistoryLength.optional(),
  statusTimestampAfter: z.iso
    .datetime({ message: "must be an ISO 8601 timestamp (UTC)" })
    .optional(),
  includeArtifacts: Bool.optional(),
});
export type ListTasksParams = z.infer<typeof ListTasksParams>;
