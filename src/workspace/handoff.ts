/**
 * The note a task leaves when it ends: HANDOFF.md (what it was asked, what was done, what is
 * next, blockers, the start of its answer, from PROGRESS.json) and the decisions PROGRESS.json
 * records, appended to decisions.log. Composed inside the workspace object, under its write lock,
 * so a read that arrives after the note was asked for sees it. Both are bounded: the note shows at
 * most {@link HANDOFF_LIST_ITEMS} entries of a list, the log keeps its last
 * {@link DECISIONS_MAX_LINES} lines.
 */
import { type FileStore, writeFile } from "./file-ops.ts";
import { DECISIONS_FILE, HANDOFF_FILE, parseProgress } from "./state-files.ts";
import type { TaskEndInput, WsResult } from "./types.ts";

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** Entries of a PROGRESS.json list HANDOFF.md shows, and characters of each. */
export const HANDOFF_LIST_ITEMS = 10;
const HANDOFF_ITEM_CHARS = 300;
/** Lines decisions.log keeps (older ones roll off), and characters of each. */
export const DECISIONS_MAX_LINES = 500;
const DECISION_LINE_CHARS = 600;

/** A list as HANDOFF.md shows it: the first (or, `from: "end"`, the last) entries, each clipped. */
function list(items: readonly string[] | undefined, from: "start" | "end" = "start"): string {
  if (!items || items.length === 0) return "- (none recorded)";
  const shown =
    from === "start" ? items.slice(0, HANDOFF_LIST_ITEMS) : items.slice(-HANDOFF_LIST_ITEMS);
  const lines = shown.map((i) => `- ${clip(i.replace(/\s+/g, " "), HANDOFF_ITEM_CHARS)}`);
  const more = items.length - shown.length;
  if (more > 0) lines.push(`- and ${more} more (PROGRESS.json)`);
  return lines.join("\n");
}

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
  const handoff = [
    `# Handoff from task ${input.taskId}`,
    "",
    `${input.at}, agent ${input.agent}, ended ${input.state.replace("TASK_STATE_", "").toLowerCase()}.`,
    "",
    "## Asked",
    clip(input.asked.trim() || "(no text)", 500),
    "",
    "## Done",
    list(progress?.accomplished, "end"),
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
  const old = (decisionsText ?? "").split("\n").filter((line) => line !== "");
  const seen = new Set(old.map((line) => line.replace(/^\S+ \S+ /, "")));
  const fresh = (progress?.decisions ?? [])
    .map((d) => clip(d.replace(/\s+/g, " "), DECISION_LINE_CHARS))
    .filter((d) => !seen.has(d));
  if (fresh.length === 0) return { handoff, decisions: null };
  const lines = [...old, ...fresh.map((d) => `${input.at} ${input.taskId} ${d}`)];
  return { handoff, decisions: `${lines.slice(-DECISIONS_MAX_LINES).join("\n")}\n` };
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
