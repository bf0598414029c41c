/**
 * `write_file`: creates or overwrites a workspace file. Output: created/overwritten, the byte
 * count and, when the workspace took an automatic checkpoint first, its id (also emitted as a
 * `checkpoint` harness event). Effects: wrote = [path].
 */
import { z } from "zod";
import type { Tool } from "../loop/contracts.ts";
import { MAX_FILE_BYTES } from "../workspace/limits.ts";
import { parseInput } from "./input.ts";
import { emitCheckpoint } from "./workspace-input.ts";

const Input = z.object({
  path: z.string().min(1, "give a file path"),
  content: z.string(),
});

/** The write_file tool. */
export const writeFileTool: Tool = {
  name: "write_file",
  domain: "workspace",
  description: `Create a text file in the workspace, or replace a file's whole content. Files are UTF-8 text up to ${MAX_FILE_BYTES} bytes (1 MiB) at relative paths such as notes/plan.md. To change part of an existing file use edit_file instead; a checkpoint is taken automatically before unsaved work is overwritten.`,
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "Relative path, e.g. notes/plan.md" },
      content: { type: "string", description: "The file's complete new content" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  async run(input, context) {
    const parsed = parseInput("write_file", Input, input, "{ path: string, content: string }");
    if (!parsed.ok) return parsed.result;
    const written = await context.workspace.write(parsed.data.path, parsed.data.content, {
      taskId: context.taskId,
    });
    if (!written.ok) return { content: written.error, isError: true };
    const { path, bytes, created, checkpoint } = written.value;
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
};
