/**
 * A workspace's file operations on its manifest and blobs: checks (path, type, size, file count,
 * the edit's single match, the state guard: a state file changes only by a harness write), the
 * content hash, storing a new blob, and committing the change through the object's `commit` (one
 * transaction with its automatic checkpoints). A file is text when its bytes are UTF-8; raw bytes
 * that are not (an upload) make a file that is listed, downloaded, replaced and deleted, but not
 * read, edited or searched as text. Refusals the model can act on are `{ ok: false, error }`
 * (with a {@link Refusal} kind); the caller holds the write lock for changes.
 */
import { sha256Hex } from "../../platform/hex.ts";
import { decodeUtf8 } from "../../platform/utf8.ts";
import { MAX_FILE_BYTES, MAX_FILES, workspacePath } from "../limits.ts";
import { mediaTypeOf } from "../media-type.ts";
import { stateWriteRefusal } from "../state/state-guard.ts";
import type { Refusal, WorkspaceApi, WorkspaceEntry, WriteMeta, WsResult } from "../types.ts";
import { type Blobs, NOT_TEXT } from "./blobs.ts";
import type { Change, HarnessChange } from "./changes.ts";
import type { FileRow, Manifest } from "./manifest.ts";
import { lineDelta, replaceOnce, sliceLines, splitLines } from "./text.ts";

type Result<K extends keyof WorkspaceApi> = Awaited<ReturnType<WorkspaceApi[K]>>;

/** What the file operations need of the workspace object. */
export interface FileStore {
  manifest: Manifest;
  blobs: Blobs;
  /** Applies a change with its automatic checkpoints; the id of the checkpoint taken, or null. */
  commit(change: Change): string | null;
  /** Applies the harness's changes of state files, all in one transaction. */
  commitHarness(changes: readonly HarnessChange[]): void;
}

/** A refusal the model can act on (of kind `reason`, where a caller answers by kind). */
export const fail = (
  error: string,
  reason?: Refusal,
): { ok: false; error: string; reason?: Refusal } =>
  reason === undefined ? { ok: false, error } : { ok: false, error, reason };

const tooLarge = (path: string, bytes: number) =>
  fail(
    `${path} would be ${bytes} bytes; the limit is ${MAX_FILE_BYTES} bytes (1 MiB) per file. Split the content into several files.`,
    "too_large",
  );

/** An existing file's path (normalised) and row; or the refusal (`missing`: said after the path). */
function existingFile(
  manifest: Pick<Manifest, "get">,
  path: string,
  missing: string,
): WsResult<{ path: string; row: FileRow }> {
  const p = workspacePath(path);
  if (!p.ok) return p;
  const row = manifest.get(p.value);
  if (!row) return fail(`${p.value} ${missing}`, "not_found");
  return { ok: true, value: { path: p.value, row } };
}

/**
 * An existing file's path (normalised), row and text; or the refusal: an invalid path, `missing`
 * (said after the path) when there is no such file, a file that is not text, or its content lost
 * from storage.
 */
async function storedFile(
  { manifest, blobs }: Pick<FileStore, "manifest" | "blobs">,
  path: string,
  missing: string,
): Promise<WsResult<{ path: string; row: FileRow; text: string }>> {
  const file = existingFile(manifest, path, missing);
  if (!file.ok) return file;
  const { path: normal, row } = file.value;
  const text = await blobs.text(row.hash);
  if (text === null) return fail(`the content of ${normal} is missing from storage`);
  if (text === NOT_TEXT)
    return fail(
      `${normal} is not a text file (${row.size} bytes of ${mediaTypeOf(normal)}): the file tools read and edit text only`,
      "not_text",
    );
  return { ok: true, value: { path: normal, row, text } };
}

/** Reads lines `offset`.. (1-based, at most `limit`) of a file. */
export async function readFile(
  store: Pick<FileStore, "manifest" | "blobs">,
  path: string,
  options: { offset?: number; limit?: number },
): Promise<Result<"read">> {
  const file = await storedFile(store, path, "not found; list_files shows the files that exist");
  if (!file.ok) return file;
  const { path: normal, text } = file.value;
  const slice = sliceLines(normal, text, options);
  return slice.ok ? { ok: true, value: { path: normal, ...slice.value } } : slice;
}

/** A path to change, normalised; refused when invalid or a state file `meta` may not change. */
function changeablePath(path: string, meta: WriteMeta): WsResult<string> {
  const p = workspacePath(path);
  if (!p.ok) return p;
  const refusal = stateWriteRefusal(p.value, meta);
  return refusal === null ? p : fail(refusal, "state_file");
}

/**
 * A checked new version of a whole file: its path, bytes and text (null: its bytes are not
 * UTF-8), and the row it replaces.
 */
interface NewVersion {
  path: string;
  bytes: Uint8Array;
  text: string | null;
  existing: FileRow | null;
}

/**
 * `content` (text, or raw bytes) as `path`'s new version, checked: the path (and the state
 * guard), its type, the size and, for a new file, the file count (`files`: how many the
 * workspace would hold before it).
 */
function newVersion(
  store: Pick<FileStore, "manifest">,
  path: string,
  content: string | Uint8Array,
  meta: WriteMeta,
  files = store.manifest.count(),
): WsResult<NewVersion> {
  const p = changeablePath(path, meta);
  if (!p.ok) return p;
  if (typeof content !== "string" && !(content instanceof Uint8Array))
    return fail("content must be text");
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  if (bytes.byteLength > MAX_FILE_BYTES) return tooLarge(p.value, bytes.byteLength);
  const text = typeof content === "string" ? content : decodeUtf8(content);
  const existing = store.manifest.get(p.value);
  if (!existing && files >= MAX_FILES) {
    return fail(
      `the workspace is full (${MAX_FILES} files); overwrite an existing file instead of creating ${p.value}`,
      "full",
    );
  }
  return { ok: true, value: { path: p.value, bytes, text, existing } };
}

/** Creates or overwrites a file with `content` (text, or raw bytes). */
export async function writeFile(
  store: FileStore,
  path: string,
  content: string | Uint8Array,
  meta: WriteMeta,
): Promise<Result<"write">> {
  const version = newVersion(store, path, content, meta);
  if (!version.ok) return version;
  const { path: normal, bytes, text, existing } = version.value;
  const write = { path: normal, bytes, text, op: "write" as const };
  const checkpoint = await saveVersion(store, write, existing?.hash ?? null, meta, {
    line: existing ? "rewrote" : "created",
  });
  const updatedAt = store.manifest.get(normal)?.updated_at ?? new Date().toISOString();
  return {
    ok: true,
    value: { path: normal, bytes: bytes.byteLength, created: !existing, checkpoint, updatedAt },
  };
}

/** Removes a file (a state file only by a harness write), with its automatic checkpoint. */
export async function removeFile(
  store: FileStore,
  path: string,
  meta: WriteMeta,
): Promise<Result<"remove">> {
  const p = changeablePath(path, meta);
  if (!p.ok) return p;
  const file = existingFile(store.manifest, p.value, "not found; nothing was removed");
  if (!file.ok) return file;
  const { row } = file.value;
  const before = await store.blobs.text(row.hash);
  const removed = typeof before === "string" ? splitLines(before).length : 0;
  const checkpoint = store.commit({
    path: p.value,
    hash: row.hash,
    size: row.size,
    op: "delete",
    taskId: meta.taskId,
    existing: true,
    ...whoChanged(meta),
    line:
      typeof before === "string" ? `deleted (-${removed} lines)` : `deleted (${row.size} bytes)`,
    added: 0,
    removed,
  });
  return { ok: true, value: { path: p.value, checkpoint } };
}

/** A file's bytes as stored, its entry and its hash. */
export async function downloadFile(
  store: Pick<FileStore, "manifest" | "blobs">,
  path: string,
): Promise<Result<"download">> {
  const file = existingFile(store.manifest, path, "not found");
  if (!file.ok) return file;
  const { path: normal, row } = file.value;
  const bytes = await store.blobs.bytes(row.hash);
  if (bytes === null) return fail(`the content of ${normal} is missing from storage`);
  const entry: WorkspaceEntry = { path: normal, size: row.size, updatedAt: row.updated_at };
  return { ok: true, value: { entry, bytes, hash: row.hash } };
}

/** Who made a change, for the change history: the agent of the task, and the person if it was one. */
function whoChanged(meta: WriteMeta): Pick<Change, "agent" | "person"> {
  return {
    ...(meta.agent ? { agent: meta.agent } : {}),
    ...(meta.person ? { person: meta.person } : {}),
  };
}

/**
 * The harness writes state files (`meta.harness`): each checked as {@link writeFile} checks it,
 * the new blobs stored at once, then every changed file committed in one transaction (none when a
 * blob cannot be stored). A file whose content is unchanged is not written. The paths written.
 */
export async function writeHarnessFiles(
  store: FileStore,
  files: ReadonlyArray<{ path: string; text: string }>,
  meta: WriteMeta & { harness: true },
): Promise<WsResult<{ written: string[] }>> {
  const changes: HarnessChange[] = [];
  const blobs = new Map<string, NewVersion>();
  let count = store.manifest.count();
  for (const file of files) {
    const version = newVersion(store, file.path, file.text, meta, count);
    if (!version.ok) return version;
    const { path, bytes, existing } = version.value;
    const hash = await sha256Hex(bytes);
    if (hash === existing?.hash) continue;
    if (!existing) count++;
    if (!store.manifest.referenced(hash)) blobs.set(hash, version.value);
    changes.push({ path, hash, size: bytes.byteLength });
  }
  await Promise.all([...blobs].map(([hash, v]) => store.blobs.put(hash, v.bytes, v.text)));
  store.commitHarness(changes);
  return { ok: true, value: { written: changes.map((c) => c.path) } };
}

/** Replaces the single occurrence of `oldText` in a file with `newText`. */
export async function editFile(
  store: FileStore,
  path: string,
  oldText: string,
  newText: string,
  meta: WriteMeta,
): Promise<Result<"edit">> {
  if (typeof oldText !== "string" || typeof newText !== "string") {
    return fail("old_text and new_text must be text");
  }
  const p = changeablePath(path, meta);
  if (!p.ok) return p;
  const file = await storedFile(store, p.value, "does not exist; create it with write_file");
  if (!file.ok) return file;
  const { path: normal, row, text } = file.value;
  const replaced = replaceOnce(normal, text, oldText, newText);
  if (!replaced.ok) return replaced;
  const bytes = new TextEncoder().encode(replaced.value);
  if (bytes.byteLength > MAX_FILE_BYTES) return tooLarge(normal, bytes.byteLength);
  const edit = { path: normal, bytes, text: replaced.value, op: "edit" as const };
  const checkpoint = await saveVersion(store, edit, row.hash, meta, {
    line: `replaced ${quote(oldText)} with ${quote(newText)}`,
    before: text,
  });
  return { ok: true, value: { path: normal, bytes: bytes.byteLength, checkpoint } };
}

/** A short, one-line quote of edited text for the change history. */
const quote = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(line.length > 40 ? `${line.slice(0, 39)}…` : line);
};

/**
 * Stores a file's new version (`current`: the hash of the version it replaces, null for a new
 * file) and commits it; nothing changes when the content is the same. `what`: the change
 * history's line, and the text replaced when the caller has it (else it is read, for the line
 * count). The checkpoint taken, or null.
 */
async function saveVersion(
  store: FileStore,
  version: { path: string; bytes: Uint8Array; text: string | null; op: "write" | "edit" },
  current: string | null,
  meta: WriteMeta,
  what: { line: string; before?: string },
): Promise<string | null> {
  const hash = await sha256Hex(version.bytes);
  if (hash === current) return null;
  if (!store.manifest.referenced(hash)) await store.blobs.put(hash, version.bytes, version.text);
  if (meta.harness === true) {
    // A state file: no automatic checkpoint, no change-history row.
    store.commitHarness([{ path: version.path, hash, size: version.bytes.byteLength }]);
    return null;
  }
  const read = current === null ? null : (what.before ?? (await store.blobs.text(current)));
  const before = typeof read === "string" ? read : null;
  // Lines are counted between texts; a file that is not text counts no lines.
  const delta = version.text === null ? { added: 0, removed: 0 } : lineDelta(before, version.text);
  const size = version.bytes.byteLength;
  return store.commit({
    path: version.path,
    hash,
    size,
    op: version.op,
    taskId: meta.taskId,
    existing: current !== null,
    ...whoChanged(meta),
    line:
      version.text === null
        ? `${what.line} (${size} bytes, not text)`
        : `${what.line} (+${delta.added} -${delta.removed} lines)`,
    ...delta,
  });
}
