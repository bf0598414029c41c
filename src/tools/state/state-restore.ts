/**
 * `state_restore`: puts one state file (PROGRESS.json, feature_status.json, agent_state.json, the
 * handoff and logs) back as it was at a checkpoint, the way out the session start offers for a
 * damaged one. Only a version that passes the file's schema is put back, and only through the
 * harness (the state guard refuses state files to write_file, edit_file and the like).
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { stateFileProblem } from "../../workspace/state/state-check.ts";
import { STATE_FILES } from "../../workspace/state/state-guard.ts";
import { defineTool } from "../input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    file: z
      .enum(STATE_FILES.map((f) => f.name) as [string, ...string[]])
      .describe("The state file to put back"),
    checkpoint: z.string().trim().min(1).max(40).describe("The checkpoint, e.g. cp-4"),
  }),
);

/** The state_restore tool. */
export const stateRestoreTool = defineTool({
  name: "state_restore",
  domain: "progress",
  description:
    "Put one state file (PROGRESS.json, feature_status.json, agent_state.json, HANDOFF.md, decisions.log, progress_log.md) back as it was at a checkpoint, e.g. the last good version the session start names for a damaged file. Only a version that is valid is put back; other files are left as they are.",
  input: toolInput,
  async run(input, context) {
    const at = await context.workspace.readAt(input.checkpoint, input.file);
    if (!at.ok) return { content: `Not restored: ${at.error}.`, isError: true };
    const problem = stateFileProblem(input.file, at.value.text);
    if (problem)
      return {
        content: `Not restored: ${input.file} at ${input.checkpoint} is not valid either (${problem}).`,
        isError: true,
      };
    const written = await context.workspace.write(input.file, at.value.text, {
      taskId: context.taskId,
      agent: context.agent,
      harness: true,
    });
    if (!written.ok) return { content: `Not restored: ${written.error}`, isError: true };
    context.emit({
      kind: "checkpoint",
      text: `Restored ${input.file} from ${input.checkpoint}`,
      tool: "state_restore",
      path: input.file,
      detail: input.checkpoint,
    });
    return { content: `Restored ${input.file} as it was at ${input.checkpoint}.` };
  },
});
