/**
 * Shared by the workspace and checkpoint tools: who is writing, the `checkpoint` harness event for
 * an automatic checkpoint, and plurals.
 */
import type { ToolContext } from "../loop/contracts.ts";
import type { WriteMeta } from "../workspace/types.ts";

/** A change made by the calling task (automatic checkpoints and rollback are keyed by it). */
export const byTask = (context: ToolContext): WriteMeta => ({
  taskId: context.taskId,
  agent: context.agent,
});

/** Publishes an automatic checkpoint on the task's stream. */
export function emitCheckpoint(
  context: ToolContext,
  tool: string,
  id: string,
  what: string,
  path?: string,
): void {
  context.emit({
    kind: "checkpoint",
    text: `Checkpoint ${id} before ${what}`,
    tool,
    ...(path ? { path } : {}),
    detail: id,
  });
}

/** "1 file", "2 files". */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
