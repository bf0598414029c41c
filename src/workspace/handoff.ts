/**
 * What a task leaves when it ends, composed by the harness from its own records and the state
 * files (no model call): HANDOFF.md (what it was asked, what this task did, from its records
 * (task-record.ts: the PROGRESS.json items it completed, its files, its tests, its model use),
 * what is next, blockers, the next agent, important notes, where to continue, the start of its
 * answer), the decisions
 * PROGRESS.json records appended to decisions.log (`time | agent | task | decision`), this task's
 * entry in progress_log.md and agent_state.json. Composed inside the workspace object, under its
 * write lock, so a read that arrives after the note was asked for sees it. All bounded: the note
 * shows at most {@link HANDOFF_LIST_ITEMS} entries of a list, the log keeps its last
 * {@link DECISIONS_MAX_LINES} lines, progress_log.md and agent_state.json bound themselves.
 */

import { stateWord } from "../protocol/task-states.ts";
import { changeTotals } from "./change-log.ts";
import { type FileStore, writeHarnessFiles } from "./files/file-ops.ts";
import { AGENT_STATE_FILE, nextAgentState, parseAgentState } from "./state/agent-state.ts";
import { parseFeatureStatus } from "./state/feature-status.ts";
import { appendProgressLog, PROGRESS_LOG_FILE, progressEntry } from "./state/progress-log.ts";
import { DECISIONS_FILE, HANDOFF_FILE, parseProgress } from "./state/state-files.ts";
import {
  changedNothing,
  filesLine,
  modelLine,
  type TaskFacts,
  type TaskRecord,
  taskFacts,
  testsLine,
} from "./task-record.ts";
import type { TaskEndInput, WsResult } from "./types.ts";

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** Entries of a PROGRESS.json list HANDOFF.md shows, and characters of each. */
export const HANDOFF_LIST_ITEMS = 5;
const HANDOFF_ITEM_CHARS = 160;
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

/** The texts the end note is composed from (null where the file does not exist). */
export interface EndTexts {
  progress: string | null;
  decisions: string | null;
  progressLog: string | null;
  agentState: string | null;
  featureStatus: string | null;
}

/** What the end note writes: each file's new text (`decisions` null: leave the log alone). */
export interface EndNote {
  handoff: string;
  decisions: string | null;
  progressLog: string;
  agentState: string;
}

/** HANDOFF.md's "Done": what this task did, from its records (never the whole PROGRESS.json list). */
function done(facts: TaskFacts, input: TaskEndInput): string {
  const completed = changedNothing(facts)
    ? "- Nothing: this task changed no file, completed no PROGRESS.json item and ran no test."
    : facts.completed.length === 0
      ? "- No PROGRESS.json item completed."
      : list(facts.completed, "end");
  return [
    completed,
    `- Files: ${filesLine(facts.files)}`,
    `- Tests: ${testsLine(facts)}`,
    `- Model: ${modelLine(input)}`,
  ].join("\n");
}

/** A decisions.log line's decision text (lines `time | agent | task | decision`, or older `time task decision`). */
const decisionOf = (line: string) =>
  line.includes(" | ") ? line.slice(line.lastIndexOf(" | ") + 3) : line.replace(/^\S+ \S+ /, "");

/**
 * The end note's files: HANDOFF.md, decisions.log (when PROGRESS.json records decisions the log
 * does not have yet), progress_log.md with this task's entry, agent_state.json. Pure: the
 * workspace object calls it with the files' current texts and the task's records while it holds
 * its write lock.
 */
export function composeTaskEnd(input: TaskEndInput, texts: EndTexts, record: TaskRecord): EndNote {
  const { progress } = parseProgress(texts.progress);
  const atStart =
    record.progressAtStart === undefined
      ? progress
      : parseProgress(record.progressAtStart).progress;
  const features = parseFeatureStatus(texts.featureStatus).status;
  const facts = taskFacts(input.taskId, record, { now: progress, atStart }, features?.testResults);
  const sections: Array<[string, string]> = [
    ["Asked", clip(input.asked.trim() || "(no text)", 500)],
    ["Done", done(facts, input)],
    ["Next", list(progress?.remaining)],
    ["Blockers", list(progress?.blockers)],
    ["Next agent", progress?.nextAgent ?? "(not named)"],
    ["Important notes", list(progress?.notes)],
    ["Continue from", progress?.continueFrom ?? "(not given)"],
    ["Answer (start)", clip(input.answer.trim() || "(no answer)", 800)],
  ];
  const handoff = [
    `# Handoff from task ${input.taskId}`,
    "",
    `${input.at}, agent ${input.agent}, ended ${stateWord(input.state)}.`,
    "",
    ...sections.flatMap(([title, body]) => [`## ${title}`, body, ""]),
  ].join("\n");
  const old = (texts.decisions ?? "").split("\n").filter((line) => line !== "");
  const seen = new Set(old.map(decisionOf));
  const fresh = (progress?.decisions ?? [])
    .map((d) => clip(d.replace(/\s+/g, " "), DECISION_LINE_CHARS))
    .filter((d) => !seen.has(d));
  const lines = [
    ...old,
    ...fresh.map((d) => `${input.at} | ${input.agent} | ${input.taskId} | ${d}`),
  ];
  const metrics = {
    ...changeTotals(record.files),
    ...modelUse(input),
    durationMs: input.startedAt
      ? Math.max(0, Date.parse(input.at) - Date.parse(input.startedAt))
      : 0,
  };
  const before = parseAgentState(texts.agentState).state;
  return {
    handoff,
    decisions: fresh.length === 0 ? null : `${lines.slice(-DECISIONS_MAX_LINES).join("\n")}\n`,
    progressLog: appendProgressLog(
      texts.progressLog,
      progressEntry(input, progress, fresh, facts, metrics),
    ),
    agentState: `${JSON.stringify(nextAgentState(before, input, progress), null, 2)}\n`,
  };
}

/** The model use an end input carries (absent numbers left out). */
const modelUse = (input: TaskEndInput) => ({
  ...(input.turns !== undefined ? { turns: input.turns } : {}),
  ...(input.tokens !== undefined ? { tokens: input.tokens } : {}),
  ...(input.costUsd !== undefined ? { costUsd: input.costUsd } : {}),
});

/**
 * Writes the end note composed from the state files' current texts and the task's records;
 * returns the paths written. Call under the write lock.
 */
export async function writeTaskEnd(
  files: FileStore,
  input: TaskEndInput,
  texts: EndTexts,
  record: TaskRecord,
): Promise<WsResult<{ written: string[] }>> {
  const note = composeTaskEnd(input, texts, record);
  const written: Array<[string, string | null]> = [
    [HANDOFF_FILE, note.handoff],
    [DECISIONS_FILE, note.decisions],
    [PROGRESS_LOG_FILE, note.progressLog],
    [AGENT_STATE_FILE, note.agentState],
  ];
  return writeHarnessFiles(
    files,
    written.flatMap(([path, text]) => (text === null ? [] : [{ path, text }])),
    { taskId: input.taskId, harness: true },
  );
}
