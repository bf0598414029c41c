/**
 * `checkpoint_create`: saves the workspace's current files as a named checkpoint (a copy of the
 * manifest; contents are shared, so it is cheap). Output: the id, label and file count.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { MAX_LABEL_CHARS } from "../../workspace/limits.ts";
import { defineTool, withValue } from "../input.ts";
import { byTask, plural } from "../workspace-input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    label: z
      .string()
      .trim()
      .min(1, "give a short label")
      .max(MAX_LABEL_CHARS)
      .describe('What this state is, e.g. "draft 1 complete"'),
  }),
);

/** The checkpoint_create tool. */
export const checkpointCreateTool = defineTool({
  name: "checkpoint_create",
  domain: "checkpoints",
  description:
    "Save the current state of every workspace file as a checkpoint you can return to with checkpoint_restore. It is cheap (contents are shared, not copied). Take one with a descriptive label before a risky change or after reaching a good state.",
  input: toolInput,
  run: async (input, context) =>
    withValue(await context.workspace.checkpointCreate(input.label, byTask(context)), (info) => ({
      content: `Checkpoint ${info.id} "${info.label}" saved (${plural(info.files, "file")}). Restore it with checkpoint_restore and id ${info.id}.`,
    })),
});
