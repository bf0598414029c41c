/**
 * `progress_read` and `progress_update` on the workspace's PROGRESS.json
 * (`{ accomplished, remaining, decisions, blockers }`, each a list of strings). An update gives
 * any of the four lists, each replacing the stored one; an invalid update is refused with the
 * reason. Every update is published as the task's `progress` artifact.
 */
import type { Tool } from "../loop/contracts.ts";
import {
  EMPTY_PROGRESS,
  PROGRESS_FILE,
  ProgressUpdateSchema,
  readProgress,
} from "../workspace/state-files.ts";
import { inputlessTool, inputSchemaOf } from "./input.ts";

export const progressReadTool = inputlessTool(
  "progress_read",
  "progress",
  "Read PROGRESS.json: what has been accomplished, what remains, the decisions taken (with reasons) and blockers. Read it first when you pick up work.",
  async (context) => {
    const { progress, invalid } = await readProgress(context.workspace);
    if (invalid)
      return {
        content: `PROGRESS.json exists but is not valid (${invalid}); rewrite it with progress_update.`,
      };
    return {
      content: progress ? JSON.stringify(progress, null, 2) : "There is no PROGRESS.json yet.",
      effects: { read: [PROGRESS_FILE] },
    };
  },
);

export const progressUpdateTool: Tool = {
  name: "progress_update",
  domain: "progress",
  description:
    "Update PROGRESS.json. Give any of accomplished, remaining, decisions, blockers; each list you give replaces the stored one (send the whole list). Update it after each meaningful step and before you finish.",
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
