/**
 * What one task did, from the harness's own records of it (never from what the model claims):
 * the files it created, changed and deleted with their lines (the change history), the tests it
 * ran and what they found (feature_status.json's `testResults`, stamped with the task), the
 * PROGRESS.json items it completed (the list now against the list when the task first changed it),
 * its model turns, tokens and estimated cost. The end note (handoff.ts) and the task's
 * progress_log.md entry say these, each in a few bounded lines. Pure: no I/O.
 */
import { clipLine } from "../platform/text.ts";
import type { FileChange } from "./change-log.ts";
import type { Progress } from "./state/state-files.ts";
import type { TestFileResult, TestResults } from "./state/test-results.ts";

/** Files and failing test files a line names before it says "and N more". */
const FILES_SHOWN = 8;
const PATH_CHARS = 100;

/** The harness's records of a task, as the workspace object reads them at its end. */
export interface TaskRecord {
  files: FileChange[];
  /** PROGRESS.json's text when the task first changed it; undefined: the task did not change it. */
  progressAtStart: string | null | undefined;
}

/** The model's share of a task: calls made (turns), tokens, estimated cost in US dollars. */
export interface ModelUse {
  turns?: number;
  tokens?: number;
  costUsd?: number;
}

/** What the task did, ready to be said. */
export interface TaskFacts {
  files: FileChange[];
  /** PROGRESS.json items the task added to its accomplished list. */
  completed: string[];
  /** The test files the task ran (their latest run was the task's). */
  tests: TestFileResult[];
  /** The newest results of every file, when the task ran none (what it leaves unverified). */
  lastSeen: TestResults | null;
}

/** The facts of a task from its records, PROGRESS.json now (parsed) and the test results. */
export function taskFacts(
  taskId: string,
  record: TaskRecord,
  progress: { now: Progress | null; atStart: Progress | null },
  results: TestResults | undefined,
): TaskFacts {
  const before = new Set(progress.atStart?.accomplished ?? []);
  const completed =
    record.progressAtStart === undefined
      ? []
      : (progress.now?.accomplished ?? []).filter((item) => !before.has(item));
  const tests = (results?.files ?? []).filter((f) => f.taskId === taskId);
  return {
    files: record.files,
    completed,
    tests,
    lastSeen: tests.length === 0 && results && results.total > 0 ? results : null,
  };
}

const more = (n: number) => (n > 0 ? `, and ${n} more` : "");
const signed = (f: FileChange) =>
  [f.added > 0 ? `+${f.added}` : "", f.removed > 0 ? `-${f.removed}` : ""]
    .filter((x) => x !== "")
    .join(" ") || "0 lines";

/** The files line: "created a.ts (+3), changed b.ts (+1 -2), deleted c.ts (-4)", or none. */
export function filesLine(files: readonly FileChange[]): string {
  if (files.length === 0) return "no file created, changed or deleted";
  const shown = files
    .slice(0, FILES_SHOWN)
    .map((f) => `${f.kind} ${clipLine(f.path, PATH_CHARS)} (${signed(f)})`);
  return `${shown.join(", ")}${more(files.length - FILES_SHOWN)}`;
}

const sum = (files: readonly TestFileResult[], key: "passing" | "total") =>
  files.reduce((n, f) => n + f[key], 0);

/**
 * The tests line: what the task's own runs found (a test file that broke named first), or that
 * it ran none, with the newest results it leaves (and, when it changed files, that they predate
 * its changes: never reported as passing).
 */
export function testsLine(facts: TaskFacts): string {
  const t = facts.tests;
  if (t.length === 0) {
    const seen = facts.lastSeen;
    if (!seen) return "none run";
    const stale = facts.files.length > 0 ? ", before this task's changes" : "";
    return `none run by this task (last run: ${seen.passing} of ${seen.total} passing, task ${seen.taskId.slice(0, 8)}${stale})`;
  }
  const broke = t.filter((f) => f.regression).map((f) => clipLine(f.file, PATH_CHARS));
  const failing = t.filter((f) => f.failing > 0);
  const names = failing
    .slice(0, FILES_SHOWN)
    .map(
      (f) => `${clipLine(f.file, PATH_CHARS)} (${f.failed.map((n) => clipLine(n, 60)).join("; ")})`,
    );
  return [
    broke.length > 0 ? `REGRESSION in ${broke.join(", ")} (passed before, fails now); ` : "",
    `ran ${t.length} test file${t.length === 1 ? "" : "s"}: ${sum(t, "passing")} of ${sum(t, "total")} passing`,
    failing.length > 0 ? `; failing: ${names.join(", ")}${more(failing.length - FILES_SHOWN)}` : "",
  ].join("");
}

/** The metrics' tests part: the task's own runs' counts, or that it ran none. */
export function testsMetric(facts: TaskFacts): string {
  const t = facts.tests;
  return t.length === 0 ? "tests not run" : `tests ${sum(t, "passing")}/${sum(t, "total")} passing`;
}

/** The model line: turns, tokens and estimated cost. */
export function modelLine(use: ModelUse): string {
  const turns = use.turns ?? 0;
  return `${turns} model turn${turns === 1 ? "" : "s"} · ${use.tokens ?? 0} tokens · $${(use.costUsd ?? 0).toFixed(4)} estimated`;
}

/** Whether the task left no trace: no file changed, no item completed, no test run. */
export function changedNothing(facts: TaskFacts): boolean {
  return facts.files.length === 0 && facts.completed.length === 0 && facts.tests.length === 0;
}
