/**
 * zod schemas for the parameters of every A2A v1.0 method the harness serves: the edge check
 * that runs before anything reaches a task object. Unknown fields are ignored (spec 5.7); fields
 * may also come under their proto names (`history_length`), as ProtoJSON allows (protocol/wire.ts).
 */
import { z } from "zod";
import { Id, Message, protoObject, TaskStateName } from "../protocol/wire.ts";

const HistoryLength = z.union([
  z.number().int().min(0, "must be 0 or more"),
  z
    .string()
    .regex(/^\d+$/, "must be a non-negative integer")
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
  }).optional(),
  metadata: Metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

export const GetTaskParams = protoObject({
  tenant: Tenant,
  id: Id,
  historyLength: HistoryLength.optional(),
});
export type GetTaskParams = z.infer<typeof GetTaskParams>;

export const CancelTaskParams = z.object({ tenant: Tenant, id: Id, metadata: Metadata.optional() });
export type CancelTaskParams = z.infer<typeof CancelTaskParams>;

export const SubscribeToTaskParams = z.object({ tenant: Tenant, id: Id });
export type SubscribeToTaskParams = z.infer<typeof SubscribeToTaskParams>;

export const PushConfigParams = z.object({ tenant: Tenant }).passthrough();
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
