/**
 * `write_file`: creates or overwrites a workspace file. Output: created/overwritten, the byte
 * count and, when the workspace took an automatic checkpoint first, its id (also emitted as a
 * `checkpoint` harness event). Effects: wrote = [path].
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { MAX_FILE_BYTES } from "../../workspace/limits.ts";
import { defineTool, withValue } from "../input.ts";
import { byTask, emitCheckpoint } from "../workspace-input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    path: z.string().min(1, "give a file path").describe("Relative path, e.g. notes/plan.md"),
    content: z.string().describe("The file's complete new content"),
  }),
);

/** The write_file tool. */
export const writeFileTool = defineTool({
  name: "write_file",
  domain: "workspace",
  description: `Create a text file in the workspace, or replace a file's whole content. Files are UTF-8 text up to ${MAX_FILE_BYTES} bytes (1 MiB) at relative paths such as notes/plan.md. To change part of an existing file use edit_file instead; a checkpoint is taken automatically before unsaved work is overwritten.`,
  input: toolInput,
  run: async (input, context) =>
    withValue(
      await context.workspace.write(input.path, input.content, byTask(context)),
      ({ path, bytes, created, checkpoint }) => {
        let text = `${created ? "Created" : "Overwrote"} ${path} (${bytes} bytes).`;
        if (checkpoint) {
          emitCheckpoint(
            context,
            "write_file",
            checkpoint,
            `${created ? "creating" : "overwriting"} ${path}`,
            path,
          );
          text += ` Checkpoint ${checkpoint} saved the previous state first (checkpoint_restore undoes this).`;
        }
        return { content: text, effects: { wrote: [path] } };
      },
    ),
});
