/**
 * A workspace's file operations on its manifest and blobs: checks (path, type, size, file count,
 * the edit's single match, the state guard: a state file changes only by a harness write), the
 * content hash, storing a new blob, and committing the change through the object's `commit` (one
 * transaction with its automatic checkpoints). Refusals the model can act on are
 * `{ ok: false, error }`; the caller holds the write lock for changes.
 */
import { sha256Hex } from "../../platform/hex.ts";
import { MAX_FILE_BYTES, MAX_FILES, workspacePath } from "../limits.ts";
import { stateWriteRefusal } from "../state/state-guard.ts";
import type { WorkspaceApi, WriteMeta, WsResult } from "../types.ts";
import type { Blobs } from "./blobs.ts";
import type { Change, HarnessChange } from "./changes.ts";
import type { FileRow, Manifest } from "./manifest.ts";
import { lineDelta, replaceOnce, sliceLines } from "./text.ts";

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

/** A refusal the model can act on. */
export const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });

const tooLarge = (path: string, bytes: number) =>
  fail(
    `${path} would be ${bytes} bytes; the limit is ${MAX_FILE_BYTES} bytes (1 MiB) per file. Split the content into several files.`,
  );

/**
 * An existing file's path (normalised), row and text; or the refusal: an invalid path, `missing`
 * (said after the path) when there is no such file, or its content lost from storage.
 */
async function storedFile(
  { manifest, blobs }: Pick<FileStore, "manifest" | "blobs">,
  path: string,
  missing: string,
): Promise<WsResult<{ path: string; row: FileRow; text: string }>> {
  const p = workspacePath(path);
  if (!p.ok) return p;
  const row = manifest.get(p.value);
  if (!row) return fail(`${p.value} ${missing}`);
  const text = await blobs.text(row.hash);
  if (text === null) return fail(`the content of ${p.value} is missing from storage`);
  return { ok: true, value: { path: p.value, row, text } };
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
  return refusal === null ? p : fail(refusal);
}

/** A checked new version of a whole file: its path, bytes and text, and the row it replaces. */
interface NewVersion {
  path: string;
  bytes: Uint8Array;
  text: string;
  existing: FileRow | null;
}

/**
 * `content` as `path`'s new version, checked: the path (and the state guard), text, the size and,
 * for a new file, the file count (`files`: how many the workspace would hold before it).
 */
function newVersion(
  store: Pick<FileStore, "manifest">,
  path: string,
  content: string,
  meta: WriteMeta,
  files = store.manifest.count(),
): WsResult<NewVersion> {
  const p = changeablePath(path, meta);
  if (!p.ok) return p;
  if (typeof content !== "string") return fail("content must be text");
  const bytes = encode(p.value, content);
  if (!bytes.ok) return bytes;
  const existing = store.manifest.get(p.value);
  if (!existing && files >= MAX_FILES) {
    return fail(
      `the workspace is full (${MAX_FILES} files); overwrite an existing file instead of creating ${p.value}`,
    );
  }
  return { ok: true, value: { path: p.value, bytes: bytes.value, text: content, existing } };
}

/** Creates or overwrites a file with `content`. */
export async function writeFile(
  store: FileStore,
  path: string,
  content: string,
  meta: WriteMeta,
): Promise<Result<"write">> {
  const version = newVersion(store, path, content, meta);
  if (!version.ok) return version;
  const { path: normal, bytes, existing } = version.value;
  const write = { path: normal, bytes, text: content, op: "write" as const };
  const checkpoint = await saveVersion(store, write, existing?.hash ?? null, meta, {
    line: existing ? "rewrote" : "created",
  });
  return {
    ok: true,
    value: { path: normal, bytes: bytes.byteLength, created: !existing, checkpoint },
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
  const bytes = encode(normal, replaced.value);
  if (!bytes.ok) return bytes;
  const edit = { path: normal, bytes: bytes.value, text: replaced.value, op: "edit" as const };
  const checkpoint = await saveVersion(store, edit, row.hash, meta, {
    line: `replaced ${quote(oldText)} with ${quote(newText)}`,
    before: text,
  });
  return { ok: true, value: { path: normal, bytes: bytes.value.byteLength, checkpoint } };
}

/** The UTF-8 bytes of a file's new content, refused over the size limit. */
function encode(path: string, content: string) {
  const bytes = new TextEncoder().encode(content);
  if (bytes.byteLength > MAX_FILE_BYTES) return tooLarge(path, bytes.byteLength);
  return { ok: true as const, value: bytes };
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
  version: { path: string; bytes: Uint8Array; text: string; op: Change["op"] },
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
  const before = current === null ? null : (what.before ?? (await store.blobs.text(current)));
  const delta = lineDelta(before, version.text);
  return store.commit({
    path: version.path,
    hash,
    size: version.bytes.byteLength,
    op: version.op,
    taskId: meta.taskId,
    existing: current !== null,
    ...(meta.agent ? { agent: meta.agent } : {}),
    line: `${what.line} (+${delta.added} -${delta.removed} lines)`,
    ...delta,
  });
}
