/**
 * `progress_read` and `progress_update`. PROGRESS.json is `{ accomplished, remaining, decisions,
 * blockers }` (lists of strings) with what the handoff passes on (`notes`, `continueFrom`,
 * `nextAgent`, `summary`); an update gives any of them, each replacing the stored one; an invalid
 * update is refused with the reason. Every update is published as the task's `progress` artifact.
 * `progress_read` reads every state file: PROGRESS.json, feature_status.json, agent_state.json and
 * the newest progress_log.md entries.
 */
import type { Tool } from "../loop/contracts.ts";
import { AGENT_STATE_FILE } from "../workspace/agent-state.ts";
import { FEATURE_STATUS_FILE } from "../workspace/feature-status.ts";
import { latestEntries, PROGRESS_LOG_FILE } from "../workspace/progress-log.ts";
import { stateFileProblem } from "../workspace/state-check.ts";
import {
  EMPTY_PROGRESS,
  PROGRESS_FILE,
  ProgressUpdateSchema,
  parseProgress,
  readProgress,
  readText,
} from "../workspace/state-files.ts";
import { inputlessTool, inputSchemaOf } from "./input.ts";

/** Newest progress_log.md entries progress_read shows. */
const LOG_ENTRIES = 3;

export const progressReadTool = inputlessTool(
  "progress_read",
  "progress",
  "Read the state of the work: PROGRESS.json (accomplished, remaining, decisions, blockers, notes, where to continue), feature_status.json (features and their tests), agent_state.json (iteration, workflow status, next agent) and the newest progress_log.md entries. Read it first when you pick up work.",
  async (context) => {
    const texts = await Promise.all(
      [PROGRESS_FILE, FEATURE_STATUS_FILE, AGENT_STATE_FILE, PROGRESS_LOG_FILE].map((path) =>
        readText(context.workspace, path),
      ),
    );
    const [progressText, features, state, log] = texts;
    const { progress, invalid } = parseProgress(progressText ?? null);
    const show = (name: string, text: string | null | undefined, problem?: string) =>
      text === null || text === undefined
        ? `${name}: none yet.`
        : problem
          ? `${name} is not valid (${problem}); the session start offers its last good version (state_restore).`
          : `${name}:\n${text.trim()}`;
    const parts = [
      invalid
        ? show(PROGRESS_FILE, progressText, invalid)
        : show(PROGRESS_FILE, progress ? JSON.stringify(progress, null, 2) : null),
      show(
        FEATURE_STATUS_FILE,
        features,
        features ? stateFileProblem(FEATURE_STATUS_FILE, features) : undefined,
      ),
      show(AGENT_STATE_FILE, state, state ? stateFileProblem(AGENT_STATE_FILE, state) : undefined),
      show(
        `${PROGRESS_LOG_FILE} (newest ${LOG_ENTRIES})`,
        log ? latestEntries(log, LOG_ENTRIES).join("\n\n") : null,
      ),
    ];
    return { content: parts.join("\n\n"), effects: { read: [PROGRESS_FILE] } };
  },
);

export const progressUpdateTool: Tool = {
  name: "progress_update",
  domain: "progress",
  description:
    "Update PROGRESS.json. Give any of accomplished, remaining, decisions, blockers (each list you give replaces the stored one: send the whole list), and for the next session notes (important notes), continueFrom (path:line), nextAgent and summary (where the work stands). Update it after each meaningful step and before you finish.",
  inputSchema: inputSchemaOf(ProgressUpdateSchema),
  async run(input, context) {
    const parsed = ProgressUpdateSchema.safeParse(input);
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
