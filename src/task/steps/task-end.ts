/**
 * What the harness does to the workspace when a task ends: the end note (HANDOFF.md,
 * decisions.log, progress_log.md, agent_state.json, composed by the workspace object, see
 * workspace/handoff.ts) is asked for with what the task asked and answered and its model use; on failure with `ROLLBACK_ON_FAILURE`, the workspace goes
 * back to the checkpoint taken before the task's first change. No model call.
 */
import type { HarnessEvent } from "../../loop/contracts.ts";
import { log } from "../../platform/logging.ts";
import type { Message } from "../../protocol/wire.ts";
import { readProgress } from "../../workspace/state/state-files.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";

/**
 * Asks the workspace for the end note without waiting: the workspace object composes and writes
 * it under its write lock, so any read that reaches it later (the next task's prompt, a client's
 * read) sees it. A failure is logged and never blocks the task's end.
 */
export function writeEndNote(
  workspace: WorkspaceApi,
  task: {
    taskId: string;
    agent: string;
    state: string;
    history: readonly Message[];
    newOwner?: boolean;
    tokens?: number;
    turns?: number;
    costUsd?: number;
    startedAt?: string;
  },
  answer: string,
): Promise<void> {
  const failed = (error: unknown) =>
    log("warn", "handoff not written", { task: task.taskId, error: String(error) });
  return workspace
    .endNote({
      taskId: task.taskId,
      agent: task.agent,
      state: task.state,
      asked: askedOf(task.history),
      answer,
      at: new Date().toISOString(),
      ...(task.newOwner ? { newOwner: true } : {}),
      ...(task.tokens !== undefined ? { tokens: task.tokens } : {}),
      ...(task.turns !== undefined ? { turns: task.turns } : {}),
      ...(task.costUsd !== undefined ? { costUsd: task.costUsd } : {}),
      ...(task.startedAt ? { startedAt: task.startedAt } : {}),
    })
    .then((result) => {
      if (!result.ok) failed(result.error);
    }, failed);
}

const firstText = (messages: readonly Message[]) =>
  messages.find((m) => m.role === "ROLE_USER")?.parts.find((p) => p.text !== undefined)?.text ?? "";

/** The first user text of a history: what a task was asked. */
export function askedOf(history: readonly Message[]): string {
  return firstText(history);
}

/** Restores the checkpoint taken before the task's first change; returns the event to publish. */
export async function rollBack(
  workspace: WorkspaceApi,
  taskId: string,
): Promise<HarnessEvent | null> {
  const checkpoint = await workspace.taskCheckpoint(taskId);
  if (!checkpoint) return null;
  const restored = await workspace.checkpointRestore(checkpoint, { taskId });
  if (!restored.ok) return null;
  return {
    kind: "rollback",
    text: `Rolled the workspace back to checkpoint ${checkpoint} (the current state is kept as ${restored.value.backup})`,
    detail: `${checkpoint} (backup ${restored.value.backup})`,
  };
}

/** The items PROGRESS.json still lists as remaining, for the turn-limit message. */
export async function remainingWork(workspace: WorkspaceApi): Promise<string[]> {
  const { progress } = await readProgress(workspace).catch(() => ({ progress: null }));
  return progress?.remaining ?? [];
}
