/**
 * `grep_files`: lines of workspace files matching a JavaScript regular expression (matched in
 * linear time: workspace/files/grep-pattern.ts), optionally only in files under a prefix or
 * matching a glob. Output: `path:line: text` lines and a summary line. Effects: searched = the
 * distinct paths with matches.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import {
  GREP_DEFAULT_RESULTS,
  GREP_MAX_BYTES,
  GREP_MAX_FILES,
  GREP_MAX_RESULTS,
  MAX_GREP_PATTERN,
} from "../../workspace/limits.ts";

import { defineTool, withValue } from "../input.ts";
import { plural } from "../workspace-input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    pattern: z
      .string()
      .min(1, "give a regular expression")
      .describe("JavaScript RegExp source, e.g. TODO|FIXME"),
    path: z.string().optional().describe("Prefix or glob filter, e.g. src/ or **/*.md"),
    max_results: z.number().int().min(1).optional(),
  }),
);

/** The grep_files tool. */
export const grepFilesTool = defineTool({
  name: "grep_files",
  domain: "workspace",
  readOnly: true,
  description: `Search workspace files for lines matching a JavaScript regular expression (source only, no slashes or flags; at most ${MAX_GREP_PATTERN} characters; no lookahead, lookbehind or backreferences: matching runs in linear time). Narrow it with path: a prefix such as notes/ or a glob such as **/*.md (* within a folder, ** across folders; a glob without / matches file names anywhere). Returns up to max_results matches (default ${GREP_DEFAULT_RESULTS}, at most ${GREP_MAX_RESULTS}) from at most ${GREP_MAX_FILES} files and ${GREP_MAX_BYTES / 1024 / 1024} MiB; use it to find where something is before reading.`,
  input: toolInput,
  run: async ({ pattern, path, max_results }, context) =>
    withValue(
      await context.workspace.grep(pattern, {
        ...(path !== undefined ? { path } : {}),
        ...(max_results !== undefined ? { maxResults: max_results } : {}),
      }),
      ({ matches, filesSearched, truncated }) => {
        const paths = [...new Set(matches.map((m) => m.path))];
        const lines = matches.map((m) => `${m.path}:${m.line}: ${m.text}`);
        const searched = `searched ${plural(filesSearched, "file")}`;
        lines.push(
          matches.length === 0
            ? `No matches (${searched}).`
            : `${plural(matches.length, "match", "matches")} in ${plural(paths.length, "file")} (${searched}).`,
        );
        if (truncated) {
          lines.push(
            "Results were cut off: there may be more matches. Narrow the pattern or path, or raise max_results.",
          );
        }
        return { content: lines.join("\n"), effects: { searched: paths } };
      },
    ),
});
