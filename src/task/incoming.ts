/**
 * A task's writes for a message that comes in, each in one transaction (and what the object
 * keeps in memory of the request: the owner's budget overrides, whether the owner is new). The first message: the
 * task's record (with the metadata clients read: owner, trace, agent and model, the request's
 * metadata, its lineage), the message (seen, in history, and in event 1, the Task) and the push
 * config sent with it. A follow-up: the message (seen, in history) and its push config, once
 * checked against the form the task waits on, if any.
 */

import { isAnonymousOwner, requireConcreteOwner } from "../auth/anonymous.ts";
import { formAnswerProblem, formOf } from "../loop/form-answer.ts";
import type { Message } from "../protocol/wire.ts";
import { runPushCall } from "../push/push-calls.ts";
import type { CreateTaskInput, FollowUpInput } from "./rpc-types.ts";
import type { TaskRuntime } from "./task-runtime.ts";

/** The message (in history, where a resent one is recognised) and its push config. */
function take(
  rt: Pick<TaskRuntime, "store" | "push">,
  taskId: string,
  message: Message,
  input: Pick<FollowUpInput, "owner" | "pushConfig">,
): void {
  rt.store.appendHistory(message);
  if (input.pushConfig)
    runPushCall(rt.push, taskId, { op: "create", owner: input.owner, config: input.pushConfig });
}

/** Writes a new task: `agent` is the agent's name, `model` its model and where it comes from. */
export function beginTask(
  rt: Pick<
    TaskRuntime,
    "transaction" | "store" | "log" | "snapshot" | "push" | "budgetHint" | "newOwner"
  >,
  input: CreateTaskInput,
  agent: string,
  model: { name: string; source: string },
): void {
  const now = new Date().toISOString();
  const message: Message = { ...input.message, taskId: input.taskId, contextId: input.contextId };
  if (input.budget !== undefined) rt.budgetHint = { budget: input.budget, at: Date.now() };
  rt.newOwner = input.freshContext === true && isAnonymousOwner(input.owner);
  rt.transaction(() => {
    rt.store.insert({
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
      },
      createdAt: now,
    });
    take(rt, input.taskId, message, input);
    rt.log.append({ task: rt.snapshot() });
  });
}

/** Writes a follow-up message of a task that has a record. */
export function acceptFollowUp(
  rt: Pick<TaskRuntime, "transaction" | "store" | "push" | "budgetHint">,
  input: FollowUpInput,
): void {
  const record = rt.store.record;
  if (!record) return;
  if (input.budget !== undefined) rt.budgetHint = { budget: input.budget, at: Date.now() };
  const message: Message = { ...input.message, taskId: record.id, contextId: record.contextId };
  rt.transaction(() => take(rt, record.id, message, input));
}

/** Why a message does not answer the form the task waits on (null when it does, or none). */
export function answerProblem(
  rt: Pick<TaskRuntime, "pending" | "children">,
  message: Message,
): string | null {
  const pending = rt.pending.get();
  if (!pending || pending.resolution) return null;
  const form = formOf(pending.waiting, (id) => rt.children.get(id)?.report?.question);
  return form ? formAnswerProblem(form, message.parts) : null;
}
