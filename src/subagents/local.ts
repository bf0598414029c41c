/**
 * In-process sub-agents: a child is a task object of this Worker, created with the parent's owner
 * and trace, its own context, and its lineage (parent, root task, root agent). The child's id is
 * derived from the parent task and the tool call, so a retried call finds the same child.
 */
import type { SubagentCall } from "../loop/contracts.ts";
import { taskIdFor } from "../platform/ids.ts";
import { stubByName } from "../platform/object-stub.ts";
import { budgetOf } from "../protocol/app-types.ts";
import type { Part } from "../protocol/wire.ts";
import { currentSpan } from "../trace/current-span.ts";
import type { ChildTransport, ParentTask } from "./transport.ts";

/** The task objects' namespace, typed by the generated Env (no import of the task object). */
type TaskNamespace = Env["TASKS"];

/** Starts (or finds) the child task of `call`. */
export async function startLocalChild(
  tasks: TaskNamespace,
  parent: ParentTask,
  call: SubagentCall,
): Promise<{ ok: true; childTaskId: string } | { ok: false; error: string }> {
  const childTaskId = await taskIdFor(
    parent.owner,
    call.agent,
    `subagent:${parent.taskId}:${call.callId}`,
  );
  // The child's span continues the `task` tool call's, the span this call is made from.
  const span = currentSpan();
  const created = await stubByName(tasks, childTaskId).create(
    {
      taskId: childTaskId,
      contextId: `sub-${childTaskId}`,
      agent: call.agent,
      owner: parent.owner,
      ...(parent.counters ? { counters: parent.counters } : {}),
      ...budgetOf(parent),
      traceId: parent.traceId,
      ...(span
        ? {
            traceParent: {
              parentSpanId: span.spanId,
              ...(span.traceState ? { traceState: span.traceState } : {}),
            },
          }
        : {}),
      message: {
        messageId: `subagent:${parent.taskId}:${call.callId}`,
        role: "ROLE_USER",
        parts: [{ text: call.prompt }],
        metadata: { subagent: { description: call.description } },
      },
      parent: parent.lineage,
    },
    { stream: false },
  );
  if (!created.ok) return { ok: false, error: created.error.message };
  return { ok: true, childTaskId };
}

/** Passes a person's answer to a local child waiting for input. */
export async function answerLocalChild(
  tasks: TaskNamespace,
  owner: string,
  childTaskId: string,
  parts: Part[],
): Promise<void> {
  const result = await stubByName(tasks, childTaskId).followUp(
    { owner, message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts } },
    { stream: false },
  );
  if (!result.ok) throw new Error(result.error.message);
}

/** Cancels a local child; an already ended child is fine. */
export async function cancelLocalChild(
  tasks: TaskNamespace,
  owner: string,
  childTaskId: string,
): Promise<void> {
  const result = await stubByName(tasks, childTaskId).cancel({ owner });
  if (!result.ok && result.error.kind !== "not_cancelable") throw new Error(result.error.message);
}

/** The in-process transport for a parent of owner `owner`. */
export function localTransport(tasks: TaskNamespace, owner: string): ChildTransport {
  return {
    start: (parent, call) => startLocalChild(tasks, parent, call),
    answer: (childTaskId, parts) => answerLocalChild(tasks, owner, childTaskId, parts),
    cancel: (childTaskId) => cancelLocalChild(tasks, owner, childTaskId),
  };
}
