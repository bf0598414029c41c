/**
 * The workspace's path rules and the limits its callers see: paths, files, reads, labels, list
 * and grep (how grep runs inside is files/grep.ts's). A workspace path is what `confinedPath`
 * accepts (relative, no `..`, no backslashes, escapes or control characters), at most
 * {@link MAX_PATH_CHARS} characters and {@link MAX_PATH_DEPTH} segments. Refusals are plain
 * messages the model can act on. Pure: no I/O.
 */
import { confinedPath, KeyError } from "../store/r2-keys.ts";
import type { WsResult } from "./types.ts";

/** Longest path, in characters. */
export const MAX_PATH_CHARS = 512;
/** Deepest path, in segments. */
export const MAX_PATH_DEPTH = 16;

/** A path refused by the path rules. */
const badPath = (error: string) => ({ ok: false as const, error, reason: "invalid_path" as const });

/** The normalised workspace path, or why `path` is refused. */
export function workspacePath(path: string): WsResult<string> {
  if (typeof path !== "string" || path.trim() === "") {
    return badPath("path is empty: give a relative path such as notes/plan.md");
  }
  if (path.length > MAX_PATH_CHARS) {
    return badPath(`path is ${path.length} characters long; the limit is ${MAX_PATH_CHARS}`);
  }
  let normal: string;
  try {
    normal = confinedPath(path);
  } catch (error) {
    const why = error instanceof KeyError ? error.message : String(error);
    return badPath(
      `invalid path: ${why}. Use a relative path inside the workspace, such as notes/plan.md`,
    );
  }
  const depth = normal.split("/").length;
  if (depth > MAX_PATH_DEPTH) {
    return badPath(
      `path has ${depth} segments; the limit is ${MAX_PATH_DEPTH} (use a flatter layout)`,
    );
  }
  return { ok: true, value: normal };
}

/** Largest file, in bytes (1 MiB). */
export const MAX_FILE_BYTES = 1_048_576;
/** Most files one workspace may hold. */
export const MAX_FILES = 2_000;
/** Most lines one read returns. */
export const MAX_READ_LINES = 2_000;
/** Most characters one read returns. */
export const MAX_READ_CHARS = 200_000;
/** Longest checkpoint label. */
export const MAX_LABEL_CHARS = 200;

/**
 * A list/grep prefix: "" (everything) for an empty prefix, `.` or `./`; otherwise the
 * normalised path, keeping a trailing `/` so `notes/` does not match `notes.md`.
 */
export function workspacePrefix(prefix: string | undefined): WsResult<string> {
  if (prefix === undefined) return { ok: true, value: "" };
  const trimmed = prefix.trim();
  if (trimmed === "" || trimmed === "." || trimmed === "./") return { ok: true, value: "" };
  const path = workspacePath(trimmed);
  if (!path.ok) return path;
  return { ok: true, value: trimmed.endsWith("/") ? `${path.value}/` : path.value };
}

/** Longest grep pattern, in characters. */
export const MAX_GREP_PATTERN = 500;
/** Default and hard cap of grep matches per call. */
export const GREP_DEFAULT_RESULTS = 50;
export const GREP_MAX_RESULTS = 200;
/** Most files one grep reads. */
export const GREP_MAX_FILES = 500;
/**
 * Most bytes one grep reads (its files in path order, up to this): a bound on the CPU one call
 * costs the workspace object, as matching is linear in the text (files/grep-pattern.ts).
 */
export const GREP_MAX_BYTES = 8 * 1024 * 1024;
