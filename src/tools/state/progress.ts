/**
 * `progress_read` and `progress_update`. PROGRESS.json is `{ accomplished, remaining, decisions,
 * blockers }` (lists of strings) with what the handoff passes on (`notes`, `continueFrom`,
 * `nextAgent`, `summary`); an update gives any of them, each replacing the stored one; an invalid
 * update is refused with the reason. Every update is published as the task's `progress` artifact.
 * `progress_read` reads every state file: PROGRESS.json, feature_status.json (with the tests the
 * harness saw run), agent_state.json and the newest progress_log.md entries.
 */
import type { Tool } from "../../loop/contracts.ts";
import { AGENT_STATE_FILE } from "../../workspace/state/agent-state.ts";
import { FEATURE_STATUS_FILE, parseFeatureStatus } from "../../workspace/state/feature-status.ts";
import { latestEntries, PROGRESS_LOG_FILE } from "../../workspace/state/progress-log.ts";
import { stateFileProblem } from "../../workspace/state/state-check.ts";
import {
  EMPTY_PROGRESS,
  PROGRESS_FILE,
  parseProgress,
  progressUpdateSchema,
  readProgress,
  readText,
} from "../../workspace/state/state-files.ts";
import type { TestResults } from "../../workspace/state/test-results.ts";
import { inputlessTool, inputSchemaOf } from "../input.ts";

/** Newest progress_log.md entries progress_read shows. */
const LOG_ENTRIES = 2;

/** feature_status.json as a totals line, one line per feature, the tests run and those failing. */
function featureSummary(text: string): string {
  const { status } = parseFeatureStatus(text);
  if (!status) return text;
  return [
    `${status.completed} of ${status.totalFeatures} completed, ${status.inProgress} in progress, ${status.blocked} blocked, ${status.notStarted} not started; tests ${status.testsPassing}/${status.testsTotal} passing`,
    ...status.features.map((f) =>
      JSON.stringify({
        id: f.id,
        title: f.title,
        status: f.status,
        tests: f.tests,
        passing: `${f.testsPassing}/${f.testsTotal}`,
        lastRunAt: f.lastRunAt,
        ...(f.regression ? { regression: true } : {}),
      }),
    ),
    ...testSummary(status.testResults),
  ].join("\n");
}

/** The test results every run the harness saw left: the counts, then each failing file. */
function testSummary(results: TestResults | undefined): string[] {
  if (!results) return [];
  const failing = results.files.filter((f) => f.failing > 0);
  return [
    `tests run (every run the harness saw): ${results.passing} of ${results.total} passing in ${results.files.length} files, last at ${results.at} by task ${results.taskId}`,
    ...failing.map((f) =>
      JSON.stringify({
        file: f.file,
        passing: `${f.passing}/${f.total}`,
        failed: f.failed,
        ...(f.regression ? { regression: true } : {}),
      }),
    ),
  ];
}

export const progressReadTool = inputlessTool(
  "progress_read",
  "progress",
  "Read the state of the work: PROGRESS.json (accomplished, remaining, decisions, blockers, notes, where to continue), feature_status.json (features and their tests), agent_state.json (iteration, workflow status, next agent) and the newest progress_log.md entries. Read it first when you pick up work.",
  async (context) => {
    const [progressText, features, state, log] = await Promise.all(
      [PROGRESS_FILE, FEATURE_STATUS_FILE, AGENT_STATE_FILE, PROGRESS_LOG_FILE].map((path) =>
        readText(context.workspace, path),
      ),
    );
    const show = (name: string, text: string | null | undefined, body: (t: string) => string) => {
      if (text === null || text === undefined) return `${name}: none yet.`;
      const problem = stateFileProblem(name, text);
      return problem
        ? `${name} is not valid (${problem}); the session start offers its last good version (state_restore).`
        : `${name}: ${body(text)}`;
    };
    const compact = (t: string) => JSON.stringify(JSON.parse(t));
    const parts = [
      show(PROGRESS_FILE, progressText, (t) => JSON.stringify(parseProgress(t).progress)),
      show(FEATURE_STATUS_FILE, features, featureSummary),
      show(AGENT_STATE_FILE, state, compact),
      show(PROGRESS_LOG_FILE, log, (t) =>
        [`newest ${LOG_ENTRIES} (read_file for more)`, ...latestEntries(t, LOG_ENTRIES)].join("\n"),
      ),
    ];
    return { content: parts.join("\n\n"), effects: { read: [PROGRESS_FILE] } };
  },
  true,
);

let progressSchema: Tool["inputSchema"] | undefined;

/** progress_update: replaces the lists and notes it is given in PROGRESS.json. */
export const progressUpdateTool: Tool = {
  name: "progress_update",
  domain: "progress",
  description:
    "Update PROGRESS.json. Give any of accomplished, remaining, decisions, blockers (each list you give replaces the stored one: send the whole list), and for the next session notes (important notes), continueFrom (path:line), nextAgent and summary (where the work stands). Update it after each meaningful step and before you finish.",
  // Made when first read, as defineTool's are: not at every isolate's start.
  get inputSchema() {
    progressSchema ??= inputSchemaOf(progressUpdateSchema());
    return progressSchema;
  },
  async run(input, context) {
    const parsed = progressUpdateSchema().safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        content: `Refused: ${issue?.path.join(".") || "update"}: ${issue?.message}. PROGRESS.json is unchanged.`,
        isError: true,
      };
    }
    if (Object.keys(parsed.data).length === 0) {
      return {
        content: "Refused: give at least one of accomplished, remaining, decisions, blockers.",
        isError: true,
      };
    }
    const { progress } = await readProgress(context.workspace);
    const next = { ...(progress ?? EMPTY_PROGRESS), ...parsed.data };
    const written = await context.workspace.write(
      PROGRESS_FILE,
      `${JSON.stringify(next, null, 2)}\n`,
      { taskId: context.taskId, harness: true },
    );
    if (!written.ok)
      return { content: `Could not write PROGRESS.json: ${written.error}`, isError: true };
    context.emit({
      kind: "progress",
      text: `Progress: ${next.accomplished.length} done, ${next.remaining.length} remaining`,
      path: PROGRESS_FILE,
      detail: next,
    });
    return {
      content: `PROGRESS.json updated: ${next.accomplished.length} accomplished, ${next.remaining.length} remaining, ${next.decisions.length} decisions, ${next.blockers.length} blockers.`,
    };
  },
};
