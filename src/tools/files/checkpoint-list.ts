/**
 * `checkpoint_list`: the workspace's checkpoints, newest first, one per line:
 * `<id>  <created at>  <manual|automatic>  <N files>  <label>` (at most LIST_LIMIT lines).
 */
import { z } from "zod";
import { defineTool, withValue } from "../input.ts";
import { plural } from "../workspace-input.ts";

const LIST_LIMIT = 50;

/** The checkpoint_list tool. */
export const checkpointListTool = defineTool({
  name: "checkpoint_list",
  domain: "checkpoints",
  readOnly: true,
  description: `List the workspace's checkpoints, newest first (at most ${LIST_LIMIT}), with id, time, whether it was taken automatically, file count and label. Automatic ones are taken before a task's first change, before unsaved work is overwritten and before a restore. Use it to find the id for checkpoint_restore.`,
  input: () => z.strictObject({}),
  run: async (_input, context) =>
    withValue(await context.workspace.checkpointList(), (listed) => {
      const all = listed.checkpoints;
      if (all.length === 0) return { content: "No checkpoints yet." };
      const lines = all
        .slice(0, LIST_LIMIT)
        .map(
          (c) =>
            `${c.id}  ${c.createdAt}  ${c.automatic ? "automatic" : "manual"}  ${plural(c.files, "file")}  ${c.label}`,
        );
      if (all.length > LIST_LIMIT) lines.push(`... and ${all.length - LIST_LIMIT} older`);
      lines.push(plural(all.length, "checkpoint"));
      return { content: lines.join("\n") };
    }),
});
