/**
 * The start of a session: what the harness does, not the model, before the first model call of a
 * task that continues work (its workspace holds state files), for the environment note:
 *  - the environment check: each state file present parses against its schema; a damaged one is
 *    named with its last good version in the checkpoints (state_restore puts it back), never
 *    skipped silently (a workspace that cannot be read at all ends the task: turn-context.ts);
 *  - the regression run: the test files of features whose tests passed last time are run again
 *    (run_code's sandbox, at most REGRESSION_MAX_FILES files within REGRESSION_TIMEOUT_MS), the
 *    results recorded in feature_status.json, a feature that passed and fails now named;
 *  - the change history: the newest changes to the workspace (the reference design's git log).
 */
import type { Config } from "../../config/config.ts";
import type { HarnessEvent } from "../../loop/contracts.ts";
import type { SessionNoteFacts } from "../../loop/prompt/environment.ts";
import { log } from "../../platform/logging.ts";
import type { RunReport } from "../../tools/run-code/sandbox.ts";
import type { ChangeEntry } from "../../workspace/change-log.ts";
import { AGENT_STATE_FILE, parseAgentState } from "../../workspace/state/agent-state.ts";
import { recordTestRun } from "../../workspace/state/feature-record.ts";
import {
  FEATURE_STATUS_FILE,
  type FeatureStatus,
  parseFeatureStatus,
  passingTests,
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

/** The session start over a snapshot that holds state files. Never throws. */
export async function startSession(input: {
  workspace: WorkspaceApi;
  texts: Record<string, string | null>;
  changes: ChangeEntry[];
  config: Config;
  /** Runs test files in the sandbox; absent when the agent has no run_code. */
  runTests?: (tests: string[], wallMs: number) => Promise<RunReport | { error: string }>;
  task: { taskId: string; agent: string };
  emit(event: HarnessEvent): void;
}): Promise<SessionFacts> {
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
  if (regression?.features.length) features = regression.status ?? features;
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

/** Runs the passing features' tests again and records the outcome; null when there is nothing to run. */
async function regressionRun(
  input: Parameters<typeof startSession>[0],
  features: FeatureStatus | null,
): Promise<{ run: RegressionRun; status?: FeatureStatus; features: string[] } | null> {
  const { maxFiles, timeoutMs } = input.config.regression;
  if (!features || !input.runTests || maxFiles === 0) return null;
  const tests = passingTests(features).slice(0, maxFiles);
  if (tests.length === 0) return null;
  const started = Date.now();
  const report = await input.runTests(tests, timeoutMs).catch((e: unknown) => ({
    error: String(e),
  }));
  const durationMs = Date.now() - started;
  const failed = (error: string) => {
    log("warn", "regression run failed", { task: input.task.taskId, error });
    return { run: { files: tests.length, durationMs, features: [], error }, features: [] };
  };
  if (!("exitCode" in report)) return failed(report.error);
  if (!report.tests)
    return failed(report.error ? `${report.error.name}: ${report.error.message}` : "no tests ran");
  const outcomes = report.tests.results.map((t) => ({ file: t.file, ok: t.ok }));
  const recorded = await recordTestRun(input.workspace, { files: tests, outcomes }, input.task);
  if (!recorded.ok) return failed(recorded.error);
  const rows = recorded.touched.map((f) => ({
    id: f.id,
    passing: f.testsPassing,
    total: f.testsTotal,
    regression: f.regression,
  }));
  const status = features && {
    ...features,
    features: features.features.map((f) => recorded.touched.find((t) => t.id === f.id) ?? f),
  };
  return {
    run: { files: tests.length, durationMs, features: rows },
    status,
    features: rows.map((r) => r.id),
  };
}

/** The harness event that says what the session start found. */
function sessionEvent(facts: SessionFacts): HarnessEvent {
  const parts = [
    `${facts.sound.length} state file${facts.sound.length === 1 ? "" : "s"} sound`,
    ...facts.damaged.map((d) => `${d.file} damaged`),
  ];
  const r = facts.regression;
  if (r) {
    const regressed = r.features.filter((f) => f.regression).map((f) => f.id);
    parts.push(
      r.error
        ? `regression run failed: ${r.error.slice(0, 120)}`
        : `re-ran ${r.files} test file${r.files === 1 ? "" : "s"}: ${regressed.length === 0 ? "no regressions" : `REGRESSION in ${regressed.join(", ")}`}`,
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
