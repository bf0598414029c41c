/**
 * `edit_file`: replaces one exact, unique occurrence of old_text in a workspace file. Output: the
 * new size and, when the workspace took an automatic checkpoint first, its id (also emitted as a
 * `checkpoint` harness event). Effects: wrote = [path].
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, withValue } from "../input.ts";
import { byTask, emitCheckpoint } from "../workspace-input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    path: z.string().min(1, "give a file path").describe("Relative path of an existing file"),
    old_text: z
      .string()
      .min(1, "give the exact text to replace")
      .describe("Exact text to replace; must occur once"),
    new_text: z.string().describe("Replacement text"),
  }),
);

/** The edit_file tool. */
export const editFileTool = defineTool({
  name: "edit_file",
  domain: "workspace",
  description:
    "Change part of an existing workspace file: replaces old_text, which must occur exactly once in the file, with new_text (empty new_text deletes it). Copy old_text exactly from read_file output (without the line-number prefix) and include enough surrounding text to make it unique. Prefer this over write_file for small changes.",
  input: toolInput,
  run: async ({ path, old_text, new_text }, context) =>
    withValue(await context.workspace.edit(path, old_text, new_text, byTask(context)), (value) => {
      let text = `Edited ${value.path} (now ${value.bytes} bytes).`;
      if (value.checkpoint) {
        emitCheckpoint(context, "edit_file", value.checkpoint, `editing ${value.path}`, value.path);
        text += ` Checkpoint ${value.checkpoint} saved the previous state first (checkpoint_restore undoes this).`;
      }
      return { content: text, effects: { wrote: [value.path] } };
    }),
});
