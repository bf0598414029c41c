/**
 * The contract between the Worker and a task object: RPC inputs and results. Failures the client
 * caused are values (`ok: false` with a kind), never thrown, so they cross the RPC boundary
 * intact; the A2A layer maps each kind to its protocol error.
 */
import type { UserBudget } from "../protocol/app-types.ts";
import type { DelegatedCaller } from "../protocol/delegated-caller.ts";
import type { Message, Task } from "../protocol/wire.ts";
import type { NewPushConfig } from "../push/push-config.ts";
import type { Lineage } from "../subagents/transport.ts";
import type { ChildReport } from "./store/children.ts";

/** Why a task call was refused. */
export type TaskErrorKind =
  /** No task here, or it belongs to another owner (never say which). */
  | "not_found"
  /** Cancel on a task that already ended. */
  | "not_cancelable"
  /** A message or subscription for a task that already ended. */
  | "terminal"
  /** A message for a task that is still working. */
  | "busy"
  /** A live message for a working task whose queue is full (protocol/live-message.ts). */
  | "queue_full"
  /** The message names a context other than the task's. */
  | "context_mismatch"
  /** A request the task cannot take as sent (e.g. too many push configs). */
  | "invalid"
  /** A message whose `ifGenerationMatch` is not the task's generation (task generations). */
  | "generation_mismatch";

/** Outcome of a task call. */
export type TaskResult<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** `metadata`: the refusal's ErrorInfo metadata, when it has any (a generation mismatch). */
      error: { kind: TaskErrorKind; message: string; metadata?: Record<string, string> };
    };

/** A refusal of `kind`. */
export const taskFail = <T>(kind: TaskErrorKind, message: string): TaskResult<T> => ({
  ok: false,
  error: { kind, message },
});

/** A value. */
export const taskOk = <T>(value: T): TaskResult<T> => ({ ok: true, value });

/** Starts a new task with its first message. */
export interface CreateTaskInput {
  taskId: string;
  contextId: string;
  agent: string;
  /** A concrete owner: a user's id or an anonymous conversation's (never the anonymous claim). */
  owner: string;
  /** The user object counting the task's budgets; default `user:<owner>`. */
  counters?: string;
  /** The owner's budget overrides as the caller found them; absent: looked up in D1 (cached). */
  budget?: UserBudget | null;
  traceId: string;
  /** The span the task continues (a caller's, or the delegating tool call's) and its `tracestate`. */
  traceParent?: { parentSpanId: string; traceState?: string };
  message: Message;
  /** Client metadata sent with the request (kept under `request` in the task's metadata). */
  requestMetadata?: Record<string, unknown>;
  /** For a sub-agent's task: who started it. */
  parent?: Lineage;
  /**
   * For a task another harness started as its sub-agent: the caller's opaque correlation id and
   * agent, and the scratchpad id it shares.
   */
  remoteParent?: { correlationId: string; agent: string; scratchId: string };
  /** For a task a delegated caller started: who asks for whom, the whole chain. */
  delegation?: DelegatedCaller;
  /** A push notification config sent with the message. */
  pushConfig?: NewPushConfig;
  /** The contextId was made by the server for this message: no other task can be in it yet. */
  freshContext?: boolean;
  /** The public base URL the caller reached: the task's `metadata.files` is under it. */
  baseUrl?: string;
}

/** A child's report to its parent (see children.ts). */
export interface ChildReportInput {
  owner: string;
  childTaskId: string;
  report: ChildReport;
}

/** A child's progress, relayed onto the parent's stream (best effort). */
export interface ChildProgressInput {
  owner: string;
  childTaskId: string;
  agent: string;
  text: string;
}

/** A further message for an existing task (answers an input-required pause). */
export interface FollowUpInput {
  /** The caller's owner claim (see auth/anonymous.ts). */
  owner: string;
  message: Message;
  /** A push notification config sent with the message. */
  pushConfig?: NewPushConfig;
  /** The owner's budget overrides as the caller found them now (they replace the task's). */
  budget?: UserBudget | null;
  /** Task generations: take the message only if the task is at this generation. */
  ifGenerationMatch?: number;
  /**
   * A live message (the live-messages extension): a working task queues it for its next step
   * instead of refusing it as busy.
   */
  live?: boolean;
}

/** Result of create / follow-up: the task, and its event stream when one was asked for. */
export interface SendOutcome {
  task: Task;
  stream: ReadableStream<Uint8Array> | null;
  /** The message was queued for the working task's next step: the send answers now. */
  queued?: boolean;
}

/** Options of a subscription: `after` = the last event the client saw (Last-Event-ID). */
export interface SubscribeInput {
  /** The caller's owner claim (see auth/anonymous.ts). */
  owner: string;
  after: number | null;
}
