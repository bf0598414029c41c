/**
 * The test results the harness observed, kept in feature_status.json's `testResults`: every test
 * run it sees (`run_code` in test mode, the session start's regression run) updates them, whether
 * or not the model names a feature. Per test file: passing, failing and total of its last run, the
 * names of the tests that failed, when and by which task; in all: the sums over the files, and the
 * last run's time and task. A file that passed completely and fails now is a `regression` until it
 * passes again. Bounded: {@link TEST_FILES_MAX} files (the longest unrun roll off), at most
 * {@link FAILED_NAMES_MAX} names of failures each. The schemas are built on first use. Pure: no
 * I/O.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";

export const TEST_FILES_MAX = 100;
export const FAILED_NAMES_MAX = 5;
const NAME_CHARS = 200;

const count = lazy(() => z.number().int().min(0));
const time = lazy(() => z.string().max(40));
const taskId = lazy(() => z.string().max(100));

const testFileResultSchema = lazy(() =>
  z.strictObject({
    file: z.string().trim().min(1).max(512),
    passing: count(),
    failing: count(),
    total: count(),
    /** The first failing tests' names. */
    failed: z.array(z.string().max(NAME_CHARS)).max(FAILED_NAMES_MAX),
    at: time(),
    taskId: taskId(),
    /** It passed completely at the run before, and fails now (kept until it passes again). */
    regression: z.boolean(),
  }),
);
export type TestFileResult = z.infer<ReturnType<typeof testFileResultSchema>>;

/** `testResults` in feature_status.json, built on first use. */
export const testResultsSchema = lazy(() =>
  z.strictObject({
    passing: count(),
    failing: count(),
    total: count(),
    /** The last run's time and task. */
    at: time(),
    taskId: taskId(),
    files: z.array(testFileResultSchema()).max(TEST_FILES_MAX),
  }),
);
export type TestResults = z.infer<ReturnType<typeof testResultsSchema>>;

/** One test's outcome in a run. */
export interface TestOutcome {
  file: string;
  ok: boolean;
  /** The test's name, when the run gives it. */
  name?: string;
}

const clipName = (name: string) =>
  name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS - 1)}…` : name;

/** Whether a file's last run passed completely. */
export const passedCompletely = (r: TestFileResult) => r.total > 0 && r.failing === 0;

/**
 * The results with a run applied: each file the run gave outcomes for gets them (a regression when
 * it passed completely before, or was one, and fails now); the sums recomputed.
 */
export function applyObservedRun(
  current: TestResults | undefined,
  outcomes: readonly TestOutcome[],
  by: { at: string; taskId: string },
): TestResults {
  const files = new Map((current?.files ?? []).map((f) => [f.file, f]));
  for (const file of new Set(outcomes.map((o) => o.file))) {
    const mine = outcomes.filter((o) => o.file === file);
    const failed = mine.filter((o) => !o.ok);
    const before = files.get(file);
    files.delete(file); // re-inserted last: the newest run stays when the list rolls over
    files.set(file, {
      file,
      passing: mine.length - failed.length,
      failing: failed.length,
      total: mine.length,
      failed: failed.slice(0, FAILED_NAMES_MAX).map((o) => clipName(o.name ?? "(unnamed)")),
      at: by.at,
      taskId: by.taskId,
      regression:
        failed.length > 0 &&
        before !== undefined &&
        (passedCompletely(before) || before.regression),
    });
  }
  const kept = [...files.values()].slice(-TEST_FILES_MAX);
  return {
    passing: kept.reduce((n, f) => n + f.passing, 0),
    failing: kept.reduce((n, f) => n + f.failing, 0),
    total: kept.reduce((n, f) => n + f.total, 0),
    at: by.at,
    taskId: by.taskId,
    files: kept,
  };
}
