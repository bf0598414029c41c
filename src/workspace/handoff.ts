/**
 * The note a task leaves when it ends: HANDOFF.md (what it was asked, what was done, what is
 * next, blockers, the start of its answer, from PROGRESS.json) and the decisions PROGRESS.json
 * records, appended to decisions.log. Composed inside the workspace object, under its write lock,
 * so a read that arrives after the note was asked for sees it.
 */
import { type FileStore, writeFile } from "./file-ops.ts";
import { DECISIONS_FILE, HANDOFF_FILE, parseProgress } from "./state-files.ts";
import type { TaskEndInput, WsResult } from "./types.ts";

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/**
 * HANDOFF.md's text, and decisions.log's new text when PROGRESS.json records decisions the log
 * does not have yet (null: leave the log alone). Pure: the workspace object calls it with the
 * files' current texts while it holds its write lock.
 */
export function composeTaskEnd(
  input: TaskEndInput,
  progressText: string | null,
  decisionsText: string | null,
): { handoff: string; decisions: string | null } {
  const { progress } = parseProgress(progressText);
  const list = (items: readonly string[] | undefined) =>
    items && items.length > 0 ? items.map((i) => `- ${i}`).join("\n") : "- (none recorded)";
  const handoff = [
    `# Handoff from task ${input.taskId}`,
    "",
    `${input.at}, agent ${input.agent}, ended ${input.state.replace("TASK_STATE_", "").toLowerCase()}.`,
    "",
    "## Asked",
    clip(input.asked.trim() || "(no text)", 500),
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
  const log = decisionsText ?? "";
  const seen = new Set(log.split("\n").map((line) => line.replace(/^\S+ \S+ /, "")));
  const fresh = (progress?.decisions ?? []).filter((d) => !seen.has(d));
  if (fresh.length === 0) return { handoff, decisions: null };
  const lines = fresh.map((d) => `${input.at} ${input.taskId} ${d}`).join("\n");
  return { handoff, decisions: `${log}${log && !log.endsWith("\n") ? "\n" : ""}${lines}\n` };
}

/**
 * Writes the end note composed from the state files' current texts (HANDOFF.md, and
 * decisions.log when it has new decisions); returns the paths written. Call under the write lock.
 */
export async function writeTaskEnd(
  files: FileStore,
  input: TaskEndInput,
  progressText: string | null,
  decisionsText: string | null,
): Promise<WsResult<{ written: string[] }>> {
  const note = composeTaskEnd(input, progressText, decisionsText);
  const meta = { taskId: input.taskId, harness: true };
  const handoff = await writeFile(files, HANDOFF_FILE, note.handoff, meta);
  if (!handoff.ok) return handoff;
  if (note.decisions === null) return { ok: true, value: { written: [HANDOFF_FILE] } };
  const decisions = await writeFile(files, DECISIONS_FILE, note.decisions, meta);
  if (!decisions.ok) return decisions;
  return { ok: true, value: { written: [HANDOFF_FILE, DECISIONS_FILE] } };
}
