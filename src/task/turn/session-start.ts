/**
 * The start of a session: what the harness does, not the model, before the first model call of a
 * task that continues work (its workspace holds state files), for the environment note:
 *  - the environment check: each state file present parses against its schema; a damaged one is
 *    named with its last good version in the checkpoints (state_restore puts it back), never
 *    skipped silently (a workspace that cannot be read at all ends the task: prepare-turn.ts);
 *  - the regression run: the test files of features whose tests passed last time are run again
 *    when the workspace changed since they last ran (run_code's sandbox, at most
 *    REGRESSION_MAX_FILES files within REGRESSION_TIMEOUT_MS, a small budget: it delays the first
 *    model call), the results recorded in feature_status.json, a feature that passed and fails
 *    now named; a run cut at its budget, or failed, records only that it was tried, so it is not
 *    tried again before the next change (a slow test planted once costs one task, not each);
 *  - the change history: the newest changes to the workspace (the reference design's git log).
 */
import type { Config } from "../../config/config.ts";
import type { HarnessEvent } from "../../loop/contracts.ts";
import type { SessionNoteFacts } from "../../loop/prompt/environment.ts";
import { log } from "../../platform/logging.ts";
import type { RunReport } from "../../tools/run-code/sandbox.ts";
import type { ChangeEntry } from "../../workspace/change-log.ts";
import { AGENT_STATE_FILE, parseAgentState } from "../../workspace/state/agent-state.ts";
import { recordTestRun, recordUnfinishedRun } from "../../workspace/state/feature-record.ts";
import {
  FEATURE_STATUS_FILE,
  type FeatureStatus,
  parseFeatureStatus,
  passingTests,
  testsDue,
} from "../../workspace/state/feature-status.ts";
import { latestEntries, PROGRESS_LOG_FILE } from "../../workspace/state/progress-log.ts";
import { stateFileProblem } from "../../workspace/state/state-check.ts";
import { STATE_FILES } from "../../workspace/state/state-guard.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";

/** Changes the note lists. */
export const HISTORY_ENTRIES = 10;

/** What the session start found (the note's view of it, loop/prompt/environment.ts). */
export type SessionFacts = SessionNoteFacts;
type DamagedFile = SessionFacts["damaged"][number];
type RegressionRun = NonNullable<SessionFacts["regression"]>;

/** Every state file's name: what the first step's snapshot reads. */
export const STATE_FILE_NAMES = STATE_FILES.map((f) => f.name);

/** Whether a snapshot's texts hold any state file (the task continues work). */
export function continuesWork(texts: Record<string, string | null>): boolean {
  return STATE_FILE_NAMES.some((name) => typeof texts[name] === "string");
}

/** What the session start needs beside the workspace (environment-read.ts makes it). */
export interface SessionDeps {
  config: Config;
  task: { taskId: string; agent: string };
  /** Runs test files in the sandbox (the regression run); absent without run_code. */
  runTests?: (tests: string[], wallMs: number) => Promise<RunReport | { error: string }>;
  /** The conversation's scratchpad files (at most `limit`) and how many there are. */
  scratch?: (
    limit: number,
  ) => Promise<{ files: Array<{ path: string; size: number }>; total: number }>;
  emit(event: HarnessEvent): void;
}

/** The session start over a snapshot that holds state files. Never throws. */
export async function startSession(
  input: SessionDeps & {
    workspace: WorkspaceApi;
    texts: Record<string, string | null>;
    changes: ChangeEntry[];
  },
): Promise<SessionFacts> {
  const { texts } = input;
  const sound: string[] = [];
  const damaged: DamagedFile[] = [];
  for (const name of STATE_FILE_NAMES) {
    const text = texts[name];
    if (typeof text !== "string") continue;
    const problem = stateFileProblem(name, text);
    if (problem === undefined) sound.push(name);
    else damaged.push({ file: name, problem, lastGood: await lastGood(input.workspace, name) });
  }
  let features = parseFeatureStatus(texts[FEATURE_STATUS_FILE] ?? null).status;
  const regression = await regressionRun(input, features);
  if (regression?.status) features = regression.status;
  const facts: SessionFacts = {
    sound,
    damaged,
    features,
    regression: regression?.run ?? null,
    changes: input.changes.slice(0, HISTORY_ENTRIES),
    state: parseAgentState(texts[AGENT_STATE_FILE] ?? null).state,
    lastEntry: latestEntries(texts[PROGRESS_LOG_FILE] ?? null, 1)[0] ?? null,
  };
  input.emit(sessionEvent(facts));
  return facts;
}

/** The newest version of `file` in the checkpoints that passes its check, if any. */
async function lastGood(workspace: WorkspaceApi, file: string): Promise<DamagedFile["lastGood"]> {
  const found = await workspace.versions(file, 10).catch(() => null);
  if (!found?.ok) return null;
  const good = found.value.versions.find((v) => stateFileProblem(file, v.text) === undefined);
  return good ? { checkpoint: good.checkpoint, createdAt: good.createdAt } : null;
}

/**
 * Runs the passing features' tests again when the workspace changed since they last ran, within
 * the run's small wall budget, and records the outcome; null when no test passed last time.
 */
async function regressionRun(
  input: Parameters<typeof startSession>[0],
  features: FeatureStatus | null,
): Promise<{ run: RegressionRun; status?: FeatureStatus } | null> {
  const { maxFiles, timeoutMs } = input.config.regression;
  if (!features || !input.runTests || maxFiles === 0) return null;
  const passing = passingTests(features).slice(0, maxFiles);
  if (passing.length === 0) return null;
  const newest = input.changes[0]?.at ?? null;
  const tests = testsDue(features, newest).slice(0, maxFiles);
  if (tests.length === 0) return { run: unchanged(passing.length, features) };
  const started = new Date();
  const report = await input.runTests(tests, timeoutMs).catch((e: unknown) => ({
    error: String(e),
  }));
  const durationMs = Date.now() - started.getTime();
  const unfinished = async (how: { error: string } | { cutAtMs: number }) => {
    if ("error" in how)
      log("warn", "regression run failed", { task: input.task.taskId, error: how.error });
    // Not run again before the workspace changes: a slow or broken run costs one task, not each.
    await recordUnfinishedRun(input.workspace, started.toISOString(), input.task.taskId);
    return { run: { files: tests.length, durationMs, features: [], ...how } };
  };
  if (!("exitCode" in report)) return unfinished({ error: report.error });
  if (cutAtBudget(report)) return unfinished({ cutAtMs: timeoutMs });
  if (!report.tests)
    return unfinished({
      error: report.error ? `${report.error.name}: ${report.error.message}` : "no tests ran",
    });
  const outcomes = report.tests.results.map((t) => ({ file: t.file, ok: t.ok, name: t.name }));
  const recorded = await recordTestRun(input.workspace, { files: tests, outcomes }, input.task);
  if (!recorded.ok) return unfinished({ error: recorded.error });
  const rows = recorded.touched.map((f) => ({
    id: f.id,
    passing: f.testsPassing,
    total: f.testsTotal,
    regression: f.regression,
  }));
  // A file a regressed feature lists is said through the feature; the others by their name.
  const named = new Set(recorded.touched.filter((f) => f.regression).flatMap((f) => f.tests));
  const regressedFiles = (recorded.status.testResults?.files ?? [])
    .filter((f) => f.regression && tests.includes(f.file) && !named.has(f.file))
    .map((f) => f.file);
  return {
    run: { files: tests.length, durationMs, features: rows, regressedFiles },
    status: recorded.status,
  };
}

/** The run not made: `files` passing test files, unchanged since they last ran. */
function unchanged(files: number, status: FeatureStatus): RegressionRun {
  const times = [
    status.regressionRunAt,
    ...status.features.map((f) => f.lastRunAt),
    ...(status.testResults?.files ?? []).map((f) => f.at),
  ];
  const last =
    times
      .filter((t): t is string => typeof t === "string")
      .sort()
      .at(-1) ?? "";
  return { files, durationMs: 0, features: [], unchangedSince: last };
}

/** Whether the run stopped at its wall budget (the sandbox's own limit, or the guard's). */
function cutAtBudget(report: RunReport): boolean {
  const errors = [report.error, ...(report.tests?.results ?? []).map((t) => t.error)];
  return errors.some(
    (e) =>
      e !== undefined &&
      (e.name === "TimeoutError" ||
        (e.name === "RangeError" && e.message.startsWith("time limit"))),
  );
}

/** The harness event that says what the session start found. */
function sessionEvent(facts: SessionFacts): HarnessEvent {
  const parts = [
    `${facts.sound.length} state file${facts.sound.length === 1 ? "" : "s"} sound`,
    ...facts.damaged.map((d) => `${d.file} damaged`),
  ];
  const r = facts.regression;
  if (r) {
    const regressed = [
      ...r.features.filter((f) => f.regression).map((f) => f.id),
      ...(r.regressedFiles ?? []),
    ];
    const files = `${r.files} test file${r.files === 1 ? "" : "s"}`;
    parts.push(
      r.unchangedSince !== undefined
        ? `not re-run: ${files}, nothing changed since they last ran`
        : r.cutAtMs !== undefined
          ? `re-running ${files} was cut at its ${r.cutAtMs} ms budget`
          : r.error
            ? `regression run failed: ${r.error.slice(0, 120)}`
            : `re-ran ${files}: ${regressed.length === 0 ? "no regressions" : `REGRESSION in ${regressed.join(", ")}`}`,
    );
  }
  return {
    kind: "session_start",
    text: `Session start: ${parts.join("; ")}`,
    detail: {
      sound: facts.sound,
      damaged: facts.damaged,
      regression: facts.regression,
      changes: facts.changes.length,
    },
  };
}
