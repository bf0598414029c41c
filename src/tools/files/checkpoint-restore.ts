/**
 * `checkpoint_restore`: puts every workspace file back as it was at a checkpoint. The workspace
 * first saves the current state as an automatic checkpoint (emitted as a `checkpoint` harness
 * event), so a restore can itself be undone. Output: what was restored and the backup's id.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, withValue } from "../input.ts";
import { byTask, emitCheckpoint, plural } from "../workspace-input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    id: z
      .string()
      .trim()
      .min(1, "give a checkpoint id such as cp-3")
      .describe("Checkpoint id, e.g. cp-3"),
  }),
);

/** The checkpoint_restore tool. */
export const checkpointRestoreTool = defineTool({
  name: "checkpoint_restore",
  domain: "checkpoints",
  description:
    "Restore every workspace file to its state at a checkpoint (files created since then disappear, changed ones revert). The current state is saved first as a new checkpoint, so you can undo the restore by restoring that one. Find ids with checkpoint_list.",
  input: toolInput,
  run: async (input, context) =>
    withValue(
      await context.workspace.checkpointRestore(input.id, byTask(context)),
      ({ restored: id, backup, files }) => {
        emitCheckpoint(context, "checkpoint_restore", backup, `restoring ${id}`);
        return {
          content: `Restored checkpoint ${id} (${plural(files, "file")}). The state before the restore was saved as ${backup}; restore ${backup} to undo.`,
        };
      },
    ),
});
