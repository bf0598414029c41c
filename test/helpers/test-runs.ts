/**
 * feature_status.json after test runs the harness saw, each by a task, no feature named (nobody
 * called `feature_update`): run i at 06:0i on 2026-11-22. Pure: no bindings.
 */
import {
  applyTestRun,
  emptyFeatureStatus,
  type FeatureStatus,
} from "../../src/workspace/state/feature-status.ts";
import type { TestOutcome } from "../../src/workspace/state/test-results.ts";

/** The file after `runs`, in order, from an empty one. */
export function observedRuns(
  runs: Array<{ taskId: string; outcomes: TestOutcome[] }>,
): FeatureStatus {
  return runs.reduce(
    (status, run, i) =>
      applyTestRun(
        status,
        { files: [...new Set(run.outcomes.map((o) => o.file))], outcomes: run.outcomes },
        { agent: "assistant", taskId: run.taskId, at: `2026-11-22T06:0${i}:00.000Z` },
      ).status,
    emptyFeatureStatus("2026-11-22T06:00:00.000Z"),
  );
}
