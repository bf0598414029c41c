/**
 * Reading and writing feature_status.json through a workspace: the `feature_update` tool, every
 * `run_code` test run and the session start's regression run (one that finishes, or one that
 * does not) go through here; every test run is recorded, named for a feature or not. Writes are the
 * harness's (no automatic checkpoint, refused to write_file by the state guard). A file that does
 * not parse is never overwritten by a test run (the session start reports it and offers its last
 * good version instead).
 */

import type { WorkspaceApi } from "../types.ts";
import {
  applyTestRun,
  emptyFeatureStatus,
  FEATURE_STATUS_FILE,
  type Feature,
  type FeatureStatus,
  featureStatusText,
  parseFeatureStatus,
  type TestOutcome,
} from "./feature-status.ts";
import { readText } from "./state-files.ts";

/** feature_status.json as stored (an empty one when there is none), or why it does not parse. */
export async function readFeatureStatus(
  workspace: WorkspaceApi,
  at: string,
): Promise<{ ok: true; value: FeatureStatus; exists: boolean } | { ok: false; error: string }> {
  const text = await readText(workspace, FEATURE_STATUS_FILE);
  const { status, invalid } = parseFeatureStatus(text);
  if (invalid) return { ok: false, error: `feature_status.json is not valid (${invalid})` };
  return { ok: true, value: status ?? emptyFeatureStatus(at), exists: status !== null };
}

/** Writes feature_status.json as the harness. */
export async function writeFeatureStatus(
  workspace: WorkspaceApi,
  status: FeatureStatus,
  taskId: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const written = await workspace.write(FEATURE_STATUS_FILE, featureStatusText(status), {
    taskId,
    harness: true,
  });
  return written.ok ? { ok: true } : { ok: false, error: written.error };
}

/**
 * Records a test run in feature_status.json (created when there is none): every file's outcomes
 * in `testResults`, whether or not a feature is concerned; the features whose test files ran get
 * their counts (`named`: the feature the run was for, created if new). Nothing is written for a
 * run without outcomes when no feature is concerned. Returns the file as written, the features
 * touched and those that regressed.
 */
export async function recordTestRun(
  workspace: WorkspaceApi,
  run: { files: readonly string[]; outcomes: readonly TestOutcome[] },
  by: { agent: string; taskId: string; named?: string },
): Promise<
  | { ok: true; status: FeatureStatus; touched: Feature[]; regressed: Feature[] }
  | { ok: false; error: string }
> {
  const at = new Date().toISOString();
  const read = await readFeatureStatus(workspace, at);
  if (!read.ok) return read;
  const applied = applyTestRun(read.value, run, {
    agent: by.agent,
    taskId: by.taskId,
    at,
    ...named(by.named),
  });
  if (applied.error) return { ok: false, error: applied.error };
  const touched = applied.status.features.filter((f) => f.lastRunAt === at);
  if (touched.length === 0 && run.outcomes.length === 0)
    return { ok: true, status: read.value, touched, regressed: [] };
  const written = await writeFeatureStatus(workspace, applied.status, by.taskId);
  if (!written.ok) return written;
  return { ok: true, status: applied.status, touched, regressed: applied.regressed };
}

const named = (id: string | undefined) => (id === undefined ? {} : { named: id });

/**
 * Records that the session start's regression run at `at` did not finish (cut at its budget, or
 * failed): the tests are not run again before the workspace changes. Nothing is written to a
 * file that does not parse, or when there is none.
 */
export async function recordUnfinishedRun(
  workspace: WorkspaceApi,
  at: string,
  taskId: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const read = await readFeatureStatus(workspace, at);
  if (!read.ok || !read.exists) return read.ok ? { ok: true } : read;
  return writeFeatureStatus(workspace, { ...read.value, regressionRunAt: at }, taskId);
}
