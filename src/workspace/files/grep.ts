/**
 * Grep over a workspace: turns the path filter (a prefix, or a glob with `*`, `**`, `?`; a glob
 * without `/` also matches file names at any depth) into a predicate over manifest paths, and
 * searches the candidates' blobs (at most GREP_MAX_FILES files and GREP_MAX_BYTES in all) in path
 * order with at most GREP_CONCURRENCY simultaneous R2 reads, stopping once enough matches are
 * found, with a pattern compiled to match in linear time (grep-pattern.ts). Matches come back in
 * path and line order.
 */

import { GREP_MAX_BYTES, GREP_MAX_FILES, MAX_FILE_BYTES, workspacePrefix } from "../limits.ts";
import type { WsResult } from "../types.ts";
import type { Blobs } from "./blobs.ts";
import type { LineMatcher } from "./grep-pattern.ts";
import type { FileRow } from "./manifest.ts";
import { splitLines } from "./text.ts";

/** Simultaneous R2 reads of one grep (the platform allows 6 open connections). */
const GREP_CONCURRENCY = 6;
/** Longest line text a grep match carries. */
const GREP_LINE_CHARS = 300;

/** Where grep reads file contents from (the workspace's blobs). */
export type BlobReader = Pick<Blobs, "text">;

/** One matching line. */
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

/** A glob as an anchored RegExp: `**` any characters, `*` any but `/`, `?` one but `/`. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/** A predicate over manifest paths for grep's `path` option, or why it is refused. */
export function pathFilter(path: string | undefined): WsResult<(p: string) => boolean> {
  const raw = path?.trim() ?? "";
  if (!/[*?]/.test(raw)) {
    const prefix = workspacePrefix(raw);
    if (!prefix.ok) return prefix;
    return { ok: true, value: (p) => p.startsWith(prefix.value) };
  }
  if (raw.length > 512 || raw.startsWith("/") || raw.includes("\\") || raw.includes("..")) {
    return {
      ok: false,
      error: `invalid path filter ${JSON.stringify(raw.slice(0, 80))}: use a relative prefix or glob such as notes/ or **/*.md`,
    };
  }
  const glob = globToRegExp(raw.replace(/^\.\//, ""));
  if (raw.includes("/")) return { ok: true, value: (p) => glob.test(p) };
  return { ok: true, value: (p) => glob.test(p) || glob.test(p.slice(p.lastIndexOf("/") + 1)) };
}

/** What a search found. */
export interface GrepOutcome {
  matches: GrepMatch[];
  filesSearched: number;
  truncated: boolean;
}

/** The first `rows` that together hold at most {@link GREP_MAX_BYTES} (and GREP_MAX_FILES). */
function withinBounds(rows: readonly FileRow[]): FileRow[] {
  const files: FileRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (files.length === GREP_MAX_FILES || bytes + row.size > GREP_MAX_BYTES) break;
    files.push(row);
    bytes += row.size;
  }
  return files;
}

/** Searches `rows` (already filtered, in path order) for `regex`, up to `maxResults` matches. */
export async function searchFiles(
  rows: readonly FileRow[],
  blobs: BlobReader,
  regex: LineMatcher,
  maxResults: number,
): Promise<GrepOutcome> {
  const candidates = rows.filter((r) => r.size <= MAX_FILE_BYTES);
  const files = withinBounds(candidates);
  const found: GrepMatch[][] = [];
  let total = 0;
  let next = 0;
  let searched = 0;
  const worker = async () => {
    while (total < maxResults && next < files.length) {
      const index = next++;
      const row = files[index] as FileRow;
      const text = await blobs.text(row.hash);
      searched += 1;
      if (typeof text !== "string") continue; // gone from storage, or not text
      const hits: GrepMatch[] = [];
      splitLines(text).forEach((line, i) => {
        if (regex.test(line)) {
          hits.push({
            path: row.path,
            line: i + 1,
            text: line.replace(/\r$/, "").slice(0, GREP_LINE_CHARS),
          });
        }
      });
      found[index] = hits;
      total += hits.length;
    }
  };
  await Promise.all(Array.from({ length: Math.min(GREP_CONCURRENCY, files.length) }, worker));
  const matches = found.flatMap((hits) => hits ?? []);
  const unsearched = next < files.length || candidates.length > files.length;
  return {
    matches: matches.slice(0, maxResults),
    filesSearched: searched,
    truncated:
      matches.length > maxResults ||
      (matches.length >= maxResults && unsearched) ||
      candidates.length > files.length,
  };
}
