/**
 * A task's writes for a message that comes in, each in one unit of work (and what the object
 * keeps in memory of the request: the owner's budget overrides, whether the owner is new). The first message: the
 * task's record (with the metadata clients read: owner, trace, agent and model, the request's
 * metadata, its lineage, the files route of its workspace), the message (seen, in history, and in event 1, the Task) and the push
 * config sent with it. A follow-up: the message (seen, in history) and its push config, once
 * checked against the form the task waits on, if any, and the task's cap on push configs. A live
 * message for a working task: the same, queued for its next step, with its echo on the streams.
 */

import { isAnonymousOwner, requireConcreteOwner } from "../auth/anonymous.ts";
import { formAnswerProblem, formOf } from "../loop/calls/form-answer.ts";
import { asLiveMessage, withoutLiveMark } from "../protocol/live-message.ts";
import type { Message } from "../protocol/wire.ts";
import { pushConfigRefusal, putPushConfig } from "../push/push-calls.ts";
import { traceParentMetadata } from "../trace/task-trace.ts";
import { liveEcho } from "./conversation/live-input.ts";
import type { CreateTaskInput, FollowUpInput } from "./rpc-types.ts";
import { filesLink } from "./runtime/file-artifact.ts";
import type { TaskState } from "./runtime/task-state.ts";

/** What the writes of an incoming message read and change in the task. */
export type IncomingTask = Pick<
  TaskState,
  | "unit"
  | "store"
  | "log"
  | "snapshot"
  | "push"
  | "pending"
  | "children"
  | "budgetHint"
  | "newOwner"
>;

/** The message (in history, where a resent one is recognised) and its push config. */
function take(
  task: Pick<IncomingTask, "store" | "push">,
  taskId: string,
  message: Message,
  input: Pick<FollowUpInput, "pushConfig">,
): void {
  task.store.appendHistory(message);
  // Within the cap: a new task has no config yet; a follow-up's was checked before it was taken.
  if (input.pushConfig) putPushConfig(task.push, taskId, input.pushConfig);
}

/** Writes a new task: `agent` is the agent's name, `model` its model and where it comes from. */
export function beginTask(
  task: IncomingTask,
  input: CreateTaskInput,
  agent: string,
  model: { name: string; source: string },
): void {
  const now = new Date().toISOString();
  const message: Message = { ...input.message, taskId: input.taskId, contextId: input.contextId };
  if (input.budget !== undefined) task.budgetHint = { budget: input.budget, at: Date.now() };
  task.newOwner = input.freshContext === true && isAnonymousOwner(input.owner);
  task.unit.run(() => {
    task.store.insert({
      id: input.taskId,
      contextId: input.contextId,
      agent,
      owner: requireConcreteOwner(input.owner),
      counters: input.counters ?? null,
      traceId: input.traceId,
      parentTaskId: input.parent?.parentTaskId ?? null,
      state: "TASK_STATE_SUBMITTED",
      status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
      metadata: {
        owner: input.owner,
        traceId: input.traceId,
        ...(input.traceParent ? traceParentMetadata(input.traceParent) : {}),
        agent,
        model,
        ...(input.requestMetadata ? { request: input.requestMetadata } : {}),
        ...(input.parent ?? {}),
        ...(input.remoteParent
          ? {
              remoteParent: {
                correlationId: input.remoteParent.correlationId,
                agent: input.remoteParent.agent,
              },
              scratchId: input.remoteParent.scratchId,
            }
          : {}),
        ...(input.delegation ? { delegation: input.delegation } : {}),
        ...(input.baseUrl
          ? {
              files: filesLink(input.baseUrl, {
                ...input,
                rootAgent: input.parent?.rootAgent ?? agent,
              }),
            }
          : {}),
      },
      createdAt: now,
    });
    take(task, input.taskId, message, input);
    task.log.append({ task: task.snapshot() });
  });
}

/** Writes a follow-up message of a task that has a record. */
export function acceptFollowUp(task: IncomingTask, input: FollowUpInput): void {
  const record = task.store.record;
  if (!record) return;
  if (input.budget !== undefined) task.budgetHint = { budget: input.budget, at: Date.now() };
  // A live message the task was not working for is an ordinary follow-up: kept unmarked.
  const message: Message = {
    ...withoutLiveMark(input.message),
    taskId: record.id,
    contextId: record.contextId,
  };
  task.unit.run(() => take(task, record.id, message, input));
}

/**
 * Writes a live message for the working task (conversation/live-input.ts), one unit: the message,
 * marked with the extension, in history (the queue its next model step takes) with its push
 * config, and its echo on the task's streams. The task's status does not change.
 */
export function acceptLiveMessage(task: IncomingTask, input: FollowUpInput): void {
  const record = task.store.record;
  if (!record) return;
  const message = asLiveMessage({
    ...input.message,
    taskId: record.id,
    contextId: record.contextId,
  });
  task.unit.run(() => {
    take(task, record.id, message, input);
    task.log.append(liveEcho(record, message));
  });
}

/**
 * Why a follow-up cannot be taken (null when it can): it does not answer the form the task waits
 * on, or its push config would be a new one past `maxPushConfigs`.
 */
export function followUpProblem(
  task: IncomingTask,
  input: Pick<FollowUpInput, "message" | "pushConfig">,
  maxPushConfigs: number,
): string | null {
  const taskId = task.store.record?.id;
  return (
    answerProblem(task, input.message) ??
    (input.pushConfig && taskId !== undefined
      ? pushConfigRefusal(task.push, taskId, input.pushConfig, maxPushConfigs)
      : null)
  );
}

/** Why a message does not answer the form the task waits on (null when it does, or none). */
function answerProblem(
  task: Pick<IncomingTask, "pending" | "children">,
  message: Message,
): string | null {
  const pending = task.pending.get();
  if (!pending || pending.resolution) return null;
  const form = formOf(pending.waiting, (id) => task.children.get(id)?.report?.question);
  return form ? formAnswerProblem(form, message.parts) : null;
}
