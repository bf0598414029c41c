/**
 * Text operations of the workspace, pure: slicing a file into the lines one read returns
 * (1-based offset, line count, capped at MAX_READ_LINES lines and MAX_READ_CHARS characters)
 * and the exact, unique replacement `edit` performs.
 */
import { MAX_READ_CHARS, MAX_READ_LINES } from "../limits.ts";
import type { WsResult } from "../types.ts";

/** The lines of `content`; a final newline ends the last line rather than starting one. */
export function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** What one read returns: the exact text of lines fromLine..toLine, line breaks included. */
export interface ReadSlice {
  content: string;
  totalLines: number;
  fromLine: number;
  toLine: number;
}

/**
 * Lines `offset`.. of `content` (at most `limit`, MAX_READ_LINES and MAX_READ_CHARS; a single
 * line longer than MAX_READ_CHARS is cut). The text is an exact slice of the file, so reading a
 * whole file returns its content unchanged. An offset past the end is refused.
 */
export function sliceLines(
  path: string,
  content: string,
  options: { offset?: number; limit?: number } = {},
): WsResult<ReadSlice> {
  const offset = options.offset ?? 1;
  const limit = Math.min(options.limit ?? MAX_READ_LINES, MAX_READ_LINES);
  if (!Number.isInteger(offset) || offset < 1) {
    return { ok: false, error: `offset must be a line number of 1 or more, got ${offset}` };
  }
  if (!Number.isInteger(limit) || limit < 1) {
    return { ok: false, error: `limit must be a line count of 1 or more, got ${limit}` };
  }
  const totalLines = splitLines(content).length;
  if (totalLines === 0 && offset === 1) {
    return { ok: true, value: { content: "", totalLines: 0, fromLine: 1, toLine: 0 } };
  }
  if (offset > totalLines) {
    return {
      ok: false,
      error: `offset ${offset} is past the end of ${path}, which has ${totalLines} lines`,
    };
  }
  let start = 0;
  for (let line = 1; line < offset; line++) start = content.indexOf("\n", start) + 1;
  let end = start;
  let toLine = offset - 1;
  while (toLine < totalLines && toLine - offset + 1 < limit) {
    const newline = content.indexOf("\n", end);
    const next = newline === -1 ? content.length : newline + 1;
    if (toLine >= offset && next - start > MAX_READ_CHARS) break;
    end = next;
    toLine += 1;
  }
  end = Math.min(end, start + MAX_READ_CHARS);
  return {
    ok: true,
    value: { content: content.slice(start, end), totalLines, fromLine: offset, toLine },
  };
}

/** Counts the occurrences of `needle` in `haystack` (non-overlapping), up to `cap`. */
function occurrences(haystack: string, needle: string, cap: number): number {
  let count = 0;
  let from = 0;
  while (count < cap) {
    const at = haystack.indexOf(needle, from);
    if (at === -1) break;
    count += 1;
    from = at + needle.length;
  }
  return count;
}

/** `content` with the single occurrence of `oldText` replaced by `newText`. */
export function replaceOnce(
  path: string,
  content: string,
  oldText: string,
  newText: string,
): WsResult<string> {
  if (oldText === "") {
    return { ok: false, error: "old_text is empty: give the exact text to replace" };
  }
  const count = occurrences(content, oldText, 1_000);
  if (count === 0) {
    return {
      ok: false,
      error: `old_text not found in ${path}; read the file again and copy the exact text (whitespace and line breaks included)`,
    };
  }
  if (count > 1) {
    return {
      ok: false,
      error: `old_text occurs ${count >= 1_000 ? "1000+" : count} times in ${path}; include more surrounding text to make it unique`,
    };
  }
  const at = content.indexOf(oldText);
  return { ok: true, value: content.slice(0, at) + newText + content.slice(at + oldText.length) };
}

/**
 * Lines added and removed from `before` to `after`, counted as a multiset difference (a line
 * moved is neither): linear in the sizes, the numbers a diff stat gives for most changes.
 */
export function lineDelta(
  before: string | null,
  after: string,
): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const line of splitLines(before ?? "")) counts.set(line, (counts.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of splitLines(after)) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else added++;
  }
  let removed = 0;
  for (const left of counts.values()) removed += left;
  return { added, removed };
}
