/**
 * A message's file parts, saved in the caller's workspace before the task takes the message: each
 * file part a person sends (its bytes inline, or a URL fetched through the SSRF guard,
 * platform/guarded-fetch.ts) becomes `uploads/<name>`, named after the part's `filename`, else
 * the URL's last segment, else `file-<n>.<extension of its media type>`. A name already taken by
 * other bytes gets `-2`, `-3`... before its extension; the same bytes sent again reuse their file.
 * The part then carries where it went (protocol/workspace-file.ts), which the model is told with
 * it. Limits: {@link MAX_MESSAGE_FILES} files a message, each at most MAX_FILE_BYTES (the
 * workspace's), URLs fetched within {@link FILE_FETCH_MS} in all, following at most 5 redirects;
 * a file that cannot be saved is noted with the reason, and the message goes on. A message with
 * no file part is returned as it is, with no call. Changes are the person's (WriteMeta.person).
 */
import { bytesOfBase64 } from "../platform/base64.ts";
import { guardedGet, readBody } from "../platform/guarded-fetch.ts";
import { sha256Hex } from "../platform/hex.ts";
import { errorFields, log } from "../platform/logging.ts";
import type { Message, Part } from "../protocol/wire.ts";
import {
  isFilePart,
  WORKSPACE_FILE_KEY,
  type WorkspaceFileNote,
  withWorkspaceFile,
} from "../protocol/workspace-file.ts";
import { MAX_FILE_BYTES, workspacePath } from "../workspace/limits.ts";
import { extensionFor } from "../workspace/media-type.ts";
import type { WorkspaceApi, WriteMeta } from "../workspace/types.ts";

/** The folder a message's files are saved in. */
export const UPLOADS_DIR = "uploads";
/** Most file parts of one message that are saved. */
export const MAX_MESSAGE_FILES = 10;
/** How long the URLs of one message's file parts may take to fetch, all together. */
export const FILE_FETCH_MS = 15_000;
/** Longest file name kept (its extension kept too). */
const MAX_NAME_CHARS = 100;

/** What saving a message's files needs. */
export interface MessageFileDeps {
  workspace: Pick<WorkspaceApi, "write" | "list" | "download">;
  /** The task the message is for and the person who sent it. */
  meta: WriteMeta & { person: string };
  /** WEB_FETCH_ALLOW_PRIVATE: a URL may name a private host. */
  allowPrivate: boolean;
  fetch: typeof fetch;
}

/** A file part's bytes, or why there are none. */
type Fetched = { bytes: Uint8Array } | { error: string };

/**
 * `message` with each of its file parts saved in the workspace and noted; a client's own notes
 * dropped. Unchanged (the same object) when it has no file part and no such note.
 */
export async function saveMessageFiles(message: Message, deps: MessageFileDeps): Promise<Message> {
  const noted = (p: Part) =>
    p.metadata !== undefined && Object.hasOwn(p.metadata, WORKSPACE_FILE_KEY);
  if (!message.parts.some((p) => isFilePart(p) || noted(p))) return message;
  try {
    return { ...message, parts: await savedParts(message.parts, deps) };
  } catch (error) {
    // The workspace could not be reached: the message goes on, each file said to be unsaved.
    log("warn", "message files not saved", { task: deps.meta.taskId, ...errorFields(error) });
    const error_ = { error: "not saved: the workspace could not be reached just now" };
    return {
      ...message,
      parts: message.parts.map((p) => withWorkspaceFile(p, isFilePart(p) ? error_ : null)),
    };
  }
}

/** The parts, each file part saved and noted (and a client's own notes dropped). */
async function savedParts(all: readonly Part[], deps: MessageFileDeps): Promise<Part[]> {
  const files = all.filter(isFilePart);
  const fetched = await fetchAll(files.slice(0, MAX_MESSAGE_FILES), deps);
  const listing = await deps.workspace.list(`${UPLOADS_DIR}/`);
  if (!listing.ok) throw new Error(listing.error);
  const sizes = new Map(listing.value.entries.map((e) => [e.path, e.size]));
  const state: SaveState = { deps, sizes, taken: new Set() };
  const parts: Part[] = [];
  let index = 0;
  for (const part of all) {
    if (!isFilePart(part)) {
      parts.push(withWorkspaceFile(part, null));
      continue;
    }
    const got = fetched[index];
    const name = fileName(part, index++);
    const note: WorkspaceFileNote =
      got === undefined
        ? { error: `not saved: a message saves at most ${MAX_MESSAGE_FILES} files` }
        : "error" in got
          ? got
          : await save(name, got.bytes, state);
    parts.push(withWorkspaceFile(part, note));
  }
  return parts;
}

/** The bytes of each file part: decoded inline bytes, or fetched URLs (in parallel, one deadline). */
async function fetchAll(parts: Part[], deps: MessageFileDeps): Promise<Fetched[]> {
  const signal = AbortSignal.timeout(FILE_FETCH_MS);
  return Promise.all(
    parts.map(async (part): Promise<Fetched> => {
      if (part.raw !== undefined) return { bytes: bytesOfBase64(part.raw) };
      try {
        return await fetchFile(part.url as string, deps, signal);
      } catch (error) {
        if (signal.aborted)
          return { error: `not saved: fetching it took over ${FILE_FETCH_MS / 1000} s` };
        return { error: `not saved: it could not be fetched (${String(error).slice(0, 200)})` };
      }
    }),
  );
}

/** A linked file's bytes, fetched through the SSRF guard, at most MAX_FILE_BYTES. */
async function fetchFile(
  url: string,
  deps: MessageFileDeps,
  signal: AbortSignal,
): Promise<Fetched> {
  const got = await guardedGet(url, {
    policy: { allowPrivate: deps.allowPrivate },
    signal,
    fetch: deps.fetch,
    headers: { "User-Agent": "a2a-edge-harness/0.1 (a file sent with a message)" },
    maxRedirects: 5,
  });
  if (!got.ok) return { error: `not saved: ${got.url.slice(0, 200)} was refused: ${got.reason}` };
  const { response } = got;
  if (response.status >= 400) {
    await response.body?.cancel().catch(() => {});
    return { error: `not saved: fetching it answered HTTP ${response.status}` };
  }
  const body = await readBody(response, MAX_FILE_BYTES, signal);
  if (body.cut)
    return {
      error: `not saved: it is larger than ${MAX_FILE_BYTES} bytes (1 MiB), a file's limit`,
    };
  return { bytes: body.bytes };
}

/** Where the saving of one message stands: sizes of the files in uploads/, paths it used. */
interface SaveState {
  deps: MessageFileDeps;
  sizes: Map<string, number>;
  taken: Set<string>;
}

/** Saves `bytes` as `uploads/<name>` or its first free variant; reuses a file of the same bytes. */
async function save(name: string, bytes: Uint8Array, state: SaveState): Promise<WorkspaceFileNote> {
  const { deps, sizes, taken } = state;
  const hash = await sha256Hex(bytes);
  for (let n = 1; n <= 50; n++) {
    const path = `${UPLOADS_DIR}/${numbered(name, n)}`;
    if (taken.has(path)) continue;
    if (sizes.get(path) === bytes.byteLength) {
      const there = await deps.workspace.download(path);
      if (there.ok && there.value.hash === hash) {
        taken.add(path);
        return { path, size: bytes.byteLength };
      }
    }
    if (sizes.has(path)) continue;
    const written = await deps.workspace.write(path, bytes, deps.meta);
    if (!written.ok) return { error: `not saved: ${written.error}` };
    taken.add(path);
    return { path: written.value.path, size: written.value.bytes };
  }
  return { error: `not saved: ${UPLOADS_DIR}/ holds 50 files named like ${name}` };
}

/** `name` with `-n` before its extension (n = 1: the name itself). */
function numbered(name: string, n: number): string {
  if (n === 1) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
}

/** A file part's name in uploads/: its own, the URL's last segment, or `file-<n>.<ext>`. */
function fileName(part: Part, index: number): string {
  const given = safeName(part.filename ?? (part.url ? lastSegment(part.url) : ""));
  if (given !== "" && workspacePath(`${UPLOADS_DIR}/${given}`).ok) return given;
  const extension = extensionFor(part.mediaType);
  return `file-${index + 1}${extension ? `.${extension}` : ""}`;
}

/** The last path segment of `url`, percent-decoded ("" when it has none). */
function lastSegment(url: string): string {
  if (!URL.canParse(url)) return "";
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A name fit for one path segment: what follows the last slash or backslash, with control
 * characters, `%` and `:` made `_`, trimmed, at most {@link MAX_NAME_CHARS} characters (the
 * extension kept); "" for nothing usable (`.`, `..`).
 */
function safeName(raw: string): string {
  const last = raw.split(/[/\\]/).pop() ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
  const clean = last.replace(/[\u0000-\u001f\u007f%:]/g, "_").trim();
  if (clean === "" || /^\.+$/.test(clean)) return "";
  if (clean.length <= MAX_NAME_CHARS) return clean;
  const dot = clean.lastIndexOf(".");
  const extension = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : "";
  return clean.slice(0, MAX_NAME_CHARS - extension.length) + extension;
}
