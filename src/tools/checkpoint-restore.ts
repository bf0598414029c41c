/**
 * `checkpoint_restore`: puts every workspace file back as it was at a checkpoint. The workspace
 * first saves the current state as an automatic checkpoint (emitted as a `checkpoint` harness
 * event), so a restore can itself be undone. Output: what was restored and the backup's id.
 */
import { z } from "zod";
import type { Tool } from "../loop/contracts.ts";
import { parseInput } from "./input.ts";
import { emitCheckpoint, plural } from "./workspace-input.ts";

const Input = z.object({ id: z.string().trim().min(1, "give a checkpoint id such as cp-3") });

/** The checkpoint_restore tool. */
export const checkpointRestoreTool: Tool = {
  name: "checkpoint_restore",
  domain: "checkpoints",
  description:
    "Restore every workspace file to its state at a checkpoint (files created since then disappear, changed ones revert). The current state is saved first as a new checkpoint, so you can undo the restore by restoring that one. Find ids with checkpoint_list.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string", description: "Checkpoint id, e.g. cp-3" } },
    required: ["id"],
    additionalProperties: false,
  },
  async run(input, context) {
    const parsed = parseInput("checkpoint_restore", Input, input, "{ id: string }");
    if (!parsed.ok) return parsed.result;
    const restored = await context.workspace.checkpointRestore(parsed.data.id, {
      taskId: context.taskId,
    });
    if (!restored.ok) return { content: restored.error, isError: true };
    const { restored: id, backup, files } = restored.value;
    emitCheckpoint(context, "checkpoint_restore", backup, `restoring ${id}`);
    return {
      content: `Restored checkpoint ${id} (${plural(files, "file")}). The state before the restore was saved as ${backup}; restore ${backup} to undo.`,
    };
  },
};
