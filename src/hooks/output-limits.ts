/**
 * Two bounds on what a tool returns to the model: output compaction (`COMPACT_OUTPUT_LINES`):
 * a successful result longer than N lines becomes a summary (line count, the first lines, how to
 * read more) while failures pass through whole, and so do a skill's instructions and files (the
 * skill tools page them to fit the next bound); and truncation (`MAX_TOOL_OUTPUT_CHARS`): any
 * result longer than the limit is cut and marked `[output truncated]`.
 */
import type { Hook } from "../loop/contracts.ts";

const SHOWN_LINES = 20;
/** Tools whose output is instructions the model asked for: never summarised. */
const WHOLE: ReadonlySet<string> = new Set(["skill_load", "skill_read"]);

/** Compacts long successful tool outputs. */
export const outputCompactionHook: Hook = {
  name: "output-compaction",
  afterTool(ctx, call, result) {
    const limit = ctx.config.compactOutputLines;
    if (limit === 0 || result.isError || WHOLE.has(call.name)) return result;
    const lines = result.content.split("\n");
    if (lines.length <= limit) return result;
    if (call.name === "run_code") return { ...result, content: compactRun(ctx, lines, limit) };
    const shown = Math.min(SHOWN_LINES, Math.max(1, Math.floor(limit / 2)));
    const how =
      call.name === "read_file"
        ? "call read_file again with offset and limit to read the part you need"
        : call.name === "grep_files"
          ? "narrow the pattern or the path filter, or lower max_results"
          : "ask for a smaller part (a narrower query, an offset or a limit)";
    ctx.emit({
      kind: "output_compacted",
      text: `${call.name} returned ${lines.length} lines; the model sees the first ${shown}`,
      tool: call.name,
      detail: `${lines.length} lines`,
    });
    return {
      ...result,
      content: [
        `[output compacted by the harness: ${lines.length} lines, ${result.content.length} characters; the first ${shown} follow]`,
        ...lines.slice(0, shown),
        `[... ${lines.length - shown} more lines; ${how}]`,
      ].join("\n"),
    };
  },
};

/**
 * A passing run_code result: its status line (exit code, time, test counts) and the last lines
 * of its output, where a run's outcome usually is. (A failing run is an error: it passes whole.)
 */
function compactRun(
  ctx: Parameters<NonNullable<Hook["afterTool"]>>[0],
  lines: string[],
  limit: number,
) {
  const tail = Math.min(SHOWN_LINES, Math.max(1, Math.floor(limit / 2)));
  ctx.emit({
    kind: "output_compacted",
    text: `run_code passed with ${lines.length} lines of output; the model sees the status and the last ${tail}`,
    tool: "run_code",
    detail: `${lines.length} lines`,
  });
  return [
    lines[0] ?? "",
    `[output compacted by the harness: the run passed; ${lines.length - 1} lines, the last ${tail} follow]`,
    ...lines.slice(-tail),
  ].join("\n");
}

/** Truncates any tool output over the character limit. */
export const outputTruncationHook: Hook = {
  name: "output-truncation",
  afterTool(ctx, call, result) {
    const max = ctx.config.maxToolOutputChars;
    if (result.content.length <= max) return result;
    ctx.emit({
      kind: "output_truncated",
      text: `${call.name} output cut at ${max} characters`,
      tool: call.name,
      detail: `${result.content.length} characters`,
    });
    return { ...result, content: `${result.content.slice(0, max)}\n[output truncated]` };
  },
};
