/**
 * progress_log.md: one entry per task, appended by the harness at the task's end (the reference
 * design's session notes), made from the task's own records (task-record.ts): the goal, the
 * PROGRESS.json items this task completed, the files it created, changed and deleted, the tests it
 * ran and what they found, what remains and is blocked, its new decisions, and the metrics (files
 * changed, lines added and removed, its tests' passing of total or "not run", model turns,
 * tokens, estimated cost, duration). Bounded: the newest {@link PROGRESS_LOG_ENTRIES} entries are
 * kept, older ones roll off (the log says how many). Pure: no I/O.
 */
import { stateWord } from "../../protocol/task-states.ts";
import {
  changedNothing,
  filesLine,
  type ModelUse,
  type TaskFacts,
  testsLine,
  testsMetric,
} from "../task-record.ts";
import type { Progress } from "./state-files.ts";

export const PROGRESS_LOG_FILE = "progress_log.md";
export const PROGRESS_LOG_ENTRIES = 50;
const LIST_ITEMS = 5;
const ITEM_CHARS = 160;
const HEADER = "# Progress log";

/** A task's numbers for its entry. */
export interface TaskMetrics extends ModelUse {
  files: number;
  added: number;
  removed: number;
  durationMs: number;
}

const line = (text: string) => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > ITEM_CHARS ? `${one.slice(0, ITEM_CHARS - 1)}…` : one;
};
const items = (list: readonly string[]) =>
  list.length === 0 ? "none" : list.slice(0, LIST_ITEMS).map(line).join("; ");

/** One task's entry. */
export function progressEntry(
  task: { taskId: string; agent: string; state: string; at: string; asked: string },
  progress: Progress | null,
  newDecisions: readonly string[],
  facts: TaskFacts,
  m: TaskMetrics,
): string {
  const state = stateWord(task.state);
  const seconds = Math.round(m.durationMs / 1000);
  const turns = m.turns ?? 0;
  return [
    `## ${task.at} · task ${task.taskId} · ${task.agent} · ${state}`,
    `- Goal: ${line(task.asked) || "(no text)"}`,
    `- Done: ${
      changedNothing(facts)
        ? "nothing: no file changed, no PROGRESS.json item completed, no test run"
        : facts.completed.length === 0
          ? "no PROGRESS.json item completed"
          : items([...facts.completed].reverse())
    }`,
    `- Files: ${filesLine(facts.files)}`,
    `- Tests: ${testsLine(facts)}`,
    `- In progress: ${items(progress?.remaining ?? [])}`,
    `- Blockers: ${items(progress?.blockers ?? [])}`,
    `- Decisions: ${items(newDecisions)}`,
    `- Metrics: ${m.files} file${m.files === 1 ? "" : "s"} changed (+${m.added} -${m.removed} lines) · ${testsMetric(facts)} · ${turns} model turn${turns === 1 ? "" : "s"} · ${m.tokens ?? 0} tokens · $${(m.costUsd ?? 0).toFixed(4)} · ${seconds} s`,
  ].join("\n");
}

/** The log with `entry` appended, the oldest entries rolled off past the bound. */
export function appendProgressLog(log: string | null, entry: string): string {
  const body = (log ?? "").split(/^## /m);
  const rolled = Number(/\((\d+) older entr(?:y|ies) rolled off\)/.exec(body[0] ?? "")?.[1] ?? 0);
  const entries = [...body.slice(1).map((e) => `## ${e.trimEnd()}`), entry];
  const dropped = Math.max(0, entries.length - PROGRESS_LOG_ENTRIES);
  const kept = entries.slice(dropped);
  const total = rolled + dropped;
  const head =
    total > 0 ? `${HEADER}\n(${total} older entr${total === 1 ? "y" : "ies"} rolled off)` : HEADER;
  return `${head}\n\n${kept.join("\n\n")}\n`;
}

/** The newest `count` entries of the log (for the environment note and progress_read). */
export function latestEntries(log: string | null, count: number): string[] {
  return (log ?? "")
    .split(/^## /m)
    .slice(1)
    .slice(-count)
    .map((e) => `## ${e.trimEnd()}`);
}
