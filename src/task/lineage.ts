/**
 * Where a task sits in a delegation tree. A task a client started is its own root; a sub-agent's
 * task records its parent, the root task (whose scratchpad it shares) and the root's agent (whose
 * workspace it works in, and under whose ListTasks it appears). Kept in the task's metadata.
 */
import type { TaskRecord } from "./task-store.ts";

/** The lineage of a sub-agent's task. */
export interface Lineage {
  parentTaskId: string;
  rootTaskId: string;
  rootAgent: string;
}

/** The task's root task and agent (itself for a root task), and its parent if any. */
export function lineageOf(record: TaskRecord): {
  parentTaskId: string | null;
  rootTaskId: string;
  rootAgent: string;
} {
  const meta = record.metadata as { rootTaskId?: unknown; rootAgent?: unknown };
  return {
    parentTaskId: record.parentTaskId,
    rootTaskId: typeof meta.rootTaskId === "string" ? meta.rootTaskId : record.id,
    rootAgent: typeof meta.rootAgent === "string" ? meta.rootAgent : record.agent,
  };
}

/** For a task a remote harness started as its sub-agent: who called it (from its metadata). */
export function remoteParentOf(record: TaskRecord): { taskId: string; agent: string } | null {
  const parent = (record.metadata as { remoteParent?: { taskId?: unknown; agent?: unknown } })
    .remoteParent;
  return typeof parent?.taskId === "string" && typeof parent.agent === "string"
    ? { taskId: parent.taskId, agent: parent.agent }
    : null;
}
