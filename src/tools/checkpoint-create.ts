/**
 * `checkpoint_create`: saves the workspace's current files as a named checkpoint (a copy of the
 * manifest; contents are shared, so it is cheap). Output: the id, label and file count.
 */
import { z } from "zod";
import type { Tool } from "../loop/contracts.ts";
import { MAX_LABEL_CHARS } from "../workspace/limits.ts";
import { parseInput } from "./input.ts";
import { plural } from "./workspace-input.ts";

const Input = z.object({
  label: z.string().trim().min(1, "give a short label").max(MAX_LABEL_CHARS),
});

/** The checkpoint_create tool. */
export const checkpointCreateTool: Tool = {
  name: "checkpoint_create",
  domain: "checkpoints",
  description:
    "Save the current state of every workspace file as a checkpoint you can return to with checkpoint_restore. It is cheap (contents are shared, not copied). Take one with a descriptive label before a risky change or after reaching a good state.",
  inputSchema: {
    type: "object",
    properties: {
      label: {
        type: "string",
        description: `What this state is, e.g. "draft 1 complete" (at most ${MAX_LABEL_CHARS} characters)`,
      },
    },
    required: ["label"],
    additionalProperties: false,
  },
  async run(input, context) {
    const parsed = parseInput("checkpoint_create", Input, input, "{ label: string }");
    if (!parsed.ok) return parsed.result;
    const created = await context.workspace.checkpointCreate(parsed.data.label, {
      taskId: context.taskId,
    });
    if (!created.ok) return { content: created.error, isError: true };
    const info = created.value;
    return {
      content: `Checkpoint ${info.id} "${info.label}" saved (${plural(info.files, "file")}). Restore it with checkpoint_restore and id ${info.id}.`,
    };
  },
};
