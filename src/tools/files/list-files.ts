/**
 * `list_files`: the workspace's files (optionally under a prefix), from the manifest, sorted by
 * path. Output: one `path (N bytes)` per line, then `N files`.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { MAX_PATH_CHARS } from "../../workspace/limits.ts";
import { defineTool, withValue } from "../input.ts";
import { plural } from "../workspace-input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    prefix: z
      .string()
      .max(MAX_PATH_CHARS)
      .optional()
      .describe("Only paths under this, e.g. notes/"),
  }),
);

/** The list_files tool. */
export const listFilesTool = defineTool({
  name: "list_files",
  domain: "workspace",
  readOnly: true,
  description:
    "List the files in the workspace with their sizes, sorted by path. Give prefix (e.g. notes/) to list only part of it. Use it to see what exists before reading or creating files.",
  input: toolInput,
  run: async ({ prefix }, context) =>
    withValue(await context.workspace.list(prefix), ({ entries, total }) => {
      const under = prefix?.trim() ? ` under ${prefix.trim()}` : "";
      const lines = entries.map((e) => `${e.path} (${e.size} bytes)`);
      lines.push(total === 0 ? `0 files${under}` : `${plural(total, "file")}${under}`);
      return { content: lines.join("\n") };
    }),
});
