/**
 * The media type of a workspace file, from its name, and the usual extension of a media type:
 * Hono's table of common types, with the text formats a workspace holds most (Markdown, YAML,
 * source code) added, and `application/octet-stream` for a name no table knows. The files API
 * lists and serves files with it; the tools name it when a file is not text; a file sent without
 * a name is named with its type's extension. Pure: no I/O.
 */
import { getMimeType, mimes } from "hono/utils/mime";

const TEXT = "text/plain; charset=utf-8";

/** Hono's table, with the workspace's text formats (`.ts` is TypeScript here, not MPEG-TS). */
const TYPES: Record<string, string> = {
  ...mimes,
  md: "text/markdown; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  ndjson: "application/x-ndjson",
  jsonl: "application/x-ndjson",
  log: TEXT,
  ts: TEXT,
  tsx: TEXT,
  jsx: TEXT,
  cjs: "text/javascript; charset=utf-8",
  py: TEXT,
  rb: TEXT,
  go: TEXT,
  rs: TEXT,
  java: TEXT,
  c: TEXT,
  h: TEXT,
  cpp: TEXT,
  sh: TEXT,
  sql: TEXT,
  ini: TEXT,
  env: TEXT,
  diff: TEXT,
  patch: TEXT,
  tsv: "text/tab-separated-values; charset=utf-8",
};

/** The fallback for a name no table knows. */
export const UNKNOWN_TYPE = "application/octet-stream";

/** The media type of the file at `path` (by its extension), with its charset for text types. */
export function mediaTypeOf(path: string): string {
  return getMimeType(path, TYPES) ?? UNKNOWN_TYPE;
}

/** The usual extension of media type `type` (without the dot), or "" when none is known. */
export function extensionFor(type: string | undefined): string {
  const base = (type ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (base === "" || base === UNKNOWN_TYPE) return "";
  // Hono's own table first: its extension for a type is the usual one (`txt`, not `ts`).
  for (const table of [mimes, TYPES])
    for (const [extension, known] of Object.entries(table))
      if (known.split(";")[0] === base) return extension;
  return "";
}
