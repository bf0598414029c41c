/**
 * What the harness writes when a task ends: a line per decision in decisions.log, and
 * HANDOFF.md (what the task was asked, what was done, what is next, blockers, the start of its
 * answer) beside PROGRESS.json, so the next task shows it in its environment. On failure with
 * `ROLLBACK_ON_FAILURE`, the workspace goes back to the checkpoint taken before the task's first
 * change. Derived from the task's own records; no model call.
 */
import type { Message } from "../a2a/wire.ts";
import type { HarnessEvent } from "../loop/harness-events.ts";
import { DECISIONS_FILE, HANDOFF_FILE, readProgress, readText } from "../workspace/state-files.ts";
import type { WorkspaceApi } from "../workspace/types.ts";

const firstText = (messages: readonly Message[]) =>
  messages.find((m) => m.role === "ROLE_USER")?.parts.find((p) => p.text !== undefined)?.text ?? "";

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** Writes HANDOFF.md and appends to decisions.log. */
export async function writeTaskEnd(input: {
  workspace: WorkspaceApi;
  taskId: string;
  agent: string;
  state: string;
  history: readonly Message[];
  answer: string;
  now: Date;
}): Promise<void> {
  const { progress } = await readProgress(input.workspace);
  const when = input.now.toISOString();
  const list = (items: readonly string[] | undefined) =>
    items && items.length > 0 ? items.map((i) => `- ${i}`).join("\n") : "- (none recorded)";
  const handoff = [
    `# Handoff from task ${input.taskId}`,
    "",
    `${when}, agent ${input.agent}, ended ${input.state.replace("TASK_STATE_", "").toLowerCase()}.`,
    "",
    "## Asked",
    clip(firstText(input.history).trim() || "(no text)", 500),
    "",
    "## Done",
    list(progress?.accomplished),
    "",
    "## Next",
    list(progress?.remaining),
    "",
    "## Blockers",
    list(progress?.blockers),
    "",
    "## Answer (start)",
    clip(input.answer.trim() || "(no answer)", 800),
    "",
  ].join("\n");
  const meta = { taskId: input.taskId, harness: true };
  await input.workspace.write(HANDOFF_FILE, handoff, meta);
  const decisions = progress?.decisions ?? [];
  if (decisions.length > 0) {
    const log = (await readText(input.workspace, DECISIONS_FILE)) ?? "";
    const seen = new Set(log.split("\n").map((line) => line.replace(/^\S+ \S+ /, "")));
    const fresh = decisions.filter((d) => !seen.has(d));
    if (fresh.length > 0) {
      const lines = fresh.map((d) => `${when} ${input.taskId} ${d}`).join("\n");
      await input.workspace.write(
        DECISIONS_FILE,
        `${log}${log && !log.endsWith("\n") ? "\n" : ""}${lines}\n`,
        meta,
      );
    }
  }
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
