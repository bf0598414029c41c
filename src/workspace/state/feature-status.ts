/**
 * feature_status.json: the features of the work with the tests that prove each, kept by the
 * harness (the `feature_update` tool, `run_code` test runs, the session start's regression run).
 * A feature has an id, a status (not_started, in_progress, completed, blocked), its test files,
 * the passing and total counts of its last run and when that was; the file keeps the totals
 * (features per status, tests passing of total) and `testResults`, what every test run the
 * harness saw found per test file (test-results.ts). Bounded: {@link FEATURES_MAX} features of at
 * most {@link FEATURE_TESTS_MAX} test files. The schemas are built on first use. Pure: no I/O.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { parseJsonFile } from "./json-file.ts";
import {
  applyObservedRun,
  passedCompletely,
  type TestOutcome,
  type TestResults,
  testResultsSchema,
} from "./test-results.ts";

export type { TestOutcome } from "./test-results.ts";

export const FEATURE_STATUS_FILE = "feature_status.json";
export const FEATURES_MAX = 100;
export const FEATURE_TESTS_MAX = 10;

/** A feature's id, built on first use. */
export const featureIdSchema = lazy(() =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a feature id is 1-64 letters, digits, . _ -"),
);
const FEATURE_STATES = ["not_started", "in_progress", "completed", "blocked"] as const;
export type FeatureState = (typeof FEATURE_STATES)[number];
const featureStateSchema = lazy(() => z.enum(FEATURE_STATES));
const testPath = lazy(() => z.string().trim().min(1).max(512));
const time = lazy(() => z.string().max(40));

const featureSchema = lazy(() =>
  z.strictObject({
    id: featureIdSchema(),
    title: z.string().max(200).optional(),
    status: featureStateSchema(),
    /** Workspace test files (`*.test.ts` / `*.test.js`) that prove it. */
    tests: z.array(testPath()).max(FEATURE_TESTS_MAX),
    testsPassing: z.number().int().min(0),
    testsTotal: z.number().int().min(0),
    lastRunAt: time().nullable(),
    /** Its tests passed at the run before the last, and some fail now. */
    regression: z.boolean(),
    /** The agent that last changed it. */
    agent: z.string().max(64).nullable(),
    startedAt: time().nullable(),
    updatedAt: time(),
  }),
);
export type Feature = z.infer<ReturnType<typeof featureSchema>>;

const featureStatusSchema = lazy(() =>
  z.strictObject({
    totalFeatures: z.number().int().min(0),
    completed: z.number().int().min(0),
    inProgress: z.number().int().min(0),
    blocked: z.number().int().min(0),
    notStarted: z.number().int().min(0),
    testsPassing: z.number().int().min(0),
    testsTotal: z.number().int().min(0),
    features: z.array(featureSchema()).max(FEATURES_MAX),
    updatedAt: time(),
    /**
     * When the session start last ran the passing tests again and the run did not finish (cut at
     * its budget, or failed): their outcome is not known, and they are not run again before the
     * workspace changes. A run that finishes records each feature's `lastRunAt` instead.
     */
    regressionRunAt: time().optional(),
    /** Every test run the harness saw, per test file and in all (test-results.ts). */
    testResults: testResultsSchema().optional(),
  }),
);
export type FeatureStatus = z.infer<ReturnType<typeof featureStatusSchema>>;

/** One feature as `feature_update` gives it: only `id` is required. Built on first use. */
export const featureChangeSchema = lazy(() =>
  z.strictObject({
    id: featureIdSchema(),
    title: z.string().trim().max(200).optional().describe("A short name"),
    status: featureStateSchema().optional(),
    tests: z
      .array(testPath())
      .max(FEATURE_TESTS_MAX)
      .optional()
      .describe("Workspace test files that prove it (*.test.ts / *.test.js)"),
  }),
);
export type FeatureChange = z.infer<ReturnType<typeof featureChangeSchema>>;

/** The file with no features. */
export function emptyFeatureStatus(at: string): FeatureStatus {
  return withTotals({ features: [] }, at);
}

/** The totals recomputed from the features (`regressionRunAt` and `testResults` kept). */
export function withTotals(
  input: {
    features: Feature[];
    regressionRunAt?: string | undefined;
    testResults?: TestResults | undefined;
  },
  at: string,
): FeatureStatus {
  const count = (state: FeatureState) => input.features.filter((f) => f.status === state).length;
  return {
    totalFeatures: input.features.length,
    completed: count("completed"),
    inProgress: count("in_progress"),
    blocked: count("blocked"),
    notStarted: count("not_started"),
    testsPassing: input.features.reduce((n, f) => n + f.testsPassing, 0),
    testsTotal: input.features.reduce((n, f) => n + f.testsTotal, 0),
    features: input.features,
    updatedAt: at,
    ...(input.regressionRunAt ? { regressionRunAt: input.regressionRunAt } : {}),
    ...(input.testResults ? { testResults: input.testResults } : {}),
  };
}

/** feature_status.json's text, checked (null text: no file; `invalid`: why it does not parse). */
export function parseFeatureStatus(text: string | null): {
  status: FeatureStatus | null;
  invalid?: string;
} {
  const { value, invalid } = parseJsonFile(featureStatusSchema(), text);
  return invalid ? { status: null, invalid } : { status: value };
}

/** The changes applied (new features appended); an error when the file would hold too many. */
export function applyFeatureChanges(
  current: FeatureStatus,
  changes: readonly FeatureChange[],
  remove: readonly string[],
  by: { agent: string; at: string },
): { ok: true; value: FeatureStatus } | { ok: false; error: string } {
  const features = current.features.filter((f) => !remove.includes(f.id));
  for (const change of changes) {
    const i = features.findIndex((f) => f.id === change.id);
    const before = features[i];
    const status = change.status ?? before?.status ?? "not_started";
    const next: Feature = {
      id: change.id,
      ...((change.title ?? before?.title) ? { title: change.title ?? before?.title } : {}),
      status,
      tests: change.tests ?? before?.tests ?? [],
      testsPassing: before?.testsPassing ?? 0,
      testsTotal: before?.testsTotal ?? 0,
      lastRunAt: before?.lastRunAt ?? null,
      regression: before?.regression ?? false,
      agent: by.agent,
      startedAt: before?.startedAt ?? (status === "not_started" ? null : by.at),
      updatedAt: by.at,
    };
    if (i >= 0) features[i] = next;
    else features.push(next);
  }
  if (features.length > FEATURES_MAX)
    return {
      ok: false,
      error: `feature_status.json holds at most ${FEATURES_MAX} features; remove finished ones first`,
    };
  return { ok: true, value: withTotals({ ...current, features }, by.at) };
}

/**
 * A test run applied: `testResults` get every file's outcomes (by `taskId`); every feature whose
 * test files ran gets the passing and total counts of those files' tests, the run's time, and
 * `regression` when it passed completely before and does not now. `named`: the feature the run
 * was for (created if new, given the run's files as its tests when it has none). Returns the file
 * and the features that regressed.
 */
export function applyTestRun(
  current: FeatureStatus,
  run: { files: readonly string[]; outcomes: readonly TestOutcome[] },
  by: { agent: string; taskId: string; at: string; named?: string },
): { status: FeatureStatus; regressed: Feature[]; error?: string } {
  let features = current.features;
  if (by.named !== undefined && !features.some((f) => f.id === by.named)) {
    const added = applyFeatureChanges(
      current,
      [{ id: by.named, status: "in_progress", tests: run.files.slice(0, FEATURE_TESTS_MAX) }],
      [],
      by,
    );
    if (!added.ok) return { status: current, regressed: [], error: added.error };
    features = added.value.features;
  }
  const regressed: Feature[] = [];
  const updated = features.map((feature) => {
    const tests =
      feature.id === by.named && feature.tests.length === 0
        ? run.files.slice(0, FEATURE_TESTS_MAX)
        : feature.tests;
    const mine = run.outcomes.filter((o) => tests.includes(o.file));
    if (mine.length === 0 || !tests.every((t) => run.files.includes(t))) return feature;
    const passing = mine.filter((o) => o.ok).length;
    const passedBefore = feature.testsTotal > 0 && feature.testsPassing === feature.testsTotal;
    const next: Feature = {
      ...feature,
      tests,
      testsPassing: passing,
      testsTotal: mine.length,
      lastRunAt: by.at,
      regression: passing < mine.length && (passedBefore || feature.regression),
      updatedAt: by.at,
    };
    if (next.regression && !feature.regression) regressed.push(next);
    return next;
  });
  const testResults =
    run.outcomes.length > 0
      ? applyObservedRun(current.testResults, run.outcomes, by)
      : current.testResults;
  return { status: withTotals({ ...current, features: updated, testResults }, by.at), regressed };
}

/**
 * The test files whose last run passed completely (the regression run's list): those of features
 * whose tests all passed, and every file the observed results hold as passing.
 */
export function passingTests(status: FeatureStatus): string[] {
  const observed = (status.testResults?.files ?? []).filter(passedCompletely).map((f) => f.file);
  return [...new Set([...testsOf(status.features.filter(passedLastRun)), ...observed])];
}

/**
 * Of {@link passingTests}, those the workspace changed after (its newest change at
 * `newestChange`, ISO time; null: no change logged): a file is due when the change is later than
 * its last run and than the session start's last unfinished run.
 */
export function testsDue(status: FeatureStatus, newestChange: string | null): string[] {
  if (newestChange === null) return [];
  const later = (t: string | null | undefined) =>
    newestChange > [t ?? "", status.regressionRunAt ?? ""].reduce((a, b) => (a > b ? a : b));
  const observed = (status.testResults?.files ?? [])
    .filter((f) => passedCompletely(f) && later(f.at))
    .map((f) => f.file);
  const featured = testsOf(status.features.filter((f) => passedLastRun(f) && later(f.lastRunAt)));
  return [...new Set([...featured, ...observed])];
}

const passedLastRun = (f: Feature) =>
  f.testsTotal > 0 && f.testsPassing === f.testsTotal && f.tests.length > 0;
const testsOf = (features: Feature[]) => [...new Set(features.flatMap((f) => f.tests))];

/** The file's text as written. */
export function featureStatusText(status: FeatureStatus): string {
  return `${JSON.stringify(status, null, 2)}\n`;
}
