/**
 * `read_file`: reads lines of a workspace file. Output: a header `<path> lines <from>-<to> of
 * <total>`, then the numbered lines (`   12| text`), then how to read on when more remain.
 * Effects: read = [path].
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { MAX_READ_CHARS, MAX_READ_LINES } from "../../workspace/limits.ts";
import { defineTool, withValue } from "../input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    path: z.string().min(1, "give a file path").describe("Relative path, e.g. notes/plan.md"),
    offset: z.number().int().min(1).optional().describe("First line to read (1-based)"),
    limit: z.number().int().min(1).optional().describe("Number of lines to read"),
  }),
);

/** Line-numbered view of `content` starting at line `from`. */
export function numberLines(content: string, from: number): string {
  const lines = content.endsWith("\n") ? content.slice(0, -1).split("\n") : content.split("\n");
  return lines
    .map((line, i) => `${String(from + i).padStart(5)}| ${line.replace(/\r$/, "")}`)
    .join("\n");
}

/** The read_file tool. */
export const readFileTool = defineTool({
  name: "read_file",
  domain: "workspace",
  readOnly: true,
  description: `Read a text file from the workspace, with line numbers. Returns at most ${MAX_READ_LINES} lines or ${MAX_READ_CHARS} characters per call; use offset (1-based line number) and limit (line count) to page through longer files. Read a file before editing it so edit_file's old_text matches exactly.`,
  input: toolInput,
  run: async ({ path, offset, limit }, context) =>
    withValue(
      await context.workspace.read(path, {
        ...(offset !== undefined ? { offset } : {}),
        ...(limit !== undefined ? { limit } : {}),
      }),
      (file) => {
        if (file.totalLines === 0) {
          return { content: `${file.path} is empty (0 lines)`, effects: { read: [file.path] } };
        }
        const header = `${file.path} lines ${file.fromLine}-${file.toLine} of ${file.totalLines}`;
        const more =
          file.toLine < file.totalLines
            ? `\n(${file.totalLines - file.toLine} more lines: read_file with offset ${file.toLine + 1})`
            : "";
        return {
          content: `${header}\n${numberLines(file.content, file.fromLine)}${more}`,
          effects: { read: [file.path] },
        };
      },
    ),
});
