/**
 * The workspace manifest in the object's SQLite: which blob (sha256 hash) each path holds, its
 * size, when and by which change number it was last written; plus the object's scope and its
 * change counter (`meta`). Synchronous SQL only; the caller groups calls in transactions. The
 * object is the only writer, so both are kept in memory once read (from nothing, for a new
 * database); {@link Manifest.forget} drops them after a transaction rolled back. Meta values that
 * only save work later (the scope, "this owner has no memory") are noted in memory and written
 * with the next change's counter, in its statement.
 */
import { copyOfMap, type RowCopy, upsertRow } from "../../store/row-copy.ts";
import type { WorkspaceScope } from "../keys.ts";
import type { WorkspaceEntry } from "../types.ts";

/** A manifest row. */
export interface FileRow {
  path: string;
  hash: string;
  size: number;
  updated_at: string;
  seq: number;
  [key: string]: SqlStorageValue;
}

/** The manifest and the object's meta values. */
export class Manifest {
  readonly #sql: SqlStorage;
  readonly #meta: RowCopy<Map<string, string>>;
  readonly #files: RowCopy<Map<string, FileRow>>;
  /** Meta values noted, not written yet (see {@link Manifest.noteMeta}). */
  readonly #pending = new Map<string, string>();
  /** Whether any checkpoint exists: false for a new database until one is taken; else unknown. */
  #checkpoints: boolean | undefined;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    this.#checkpoints = fresh ? false : undefined;
    this.#meta = copyOfMap(
      sql,
      "SELECT key, value FROM meta",
      (r: { key: string; value: string }) => [r.key, r.value],
      fresh,
    );
    this.#files = copyOfMap(sql, "SELECT * FROM files", (r: FileRow) => [r.path, { ...r }], fresh);
  }

  /** Drops the in-memory copies: the next read takes them from SQLite. */
  forget(): void {
    this.#meta.forget();
    this.#files.forget();
    this.#checkpoints = undefined;
  }

  /** A meta value. */
  meta(key: string): string | null {
    return this.#pending.get(key) ?? this.#metaValues().get(key) ?? null;
  }

  /**
   * Notes meta values that need not be durable at once (losing them costs a read later, never a
   * wrong answer): they are written with the next {@link Manifest.setMeta}.
   */
  noteMeta(values: Record<string, string>): void {
    for (const [key, value] of Object.entries(values)) this.#pending.set(key, value);
  }

  /** Sets meta values, and those noted before (one statement). */
  setMeta(values: Record<string, string>): void {
    const entries = [...this.#pending, ...Object.entries(values)];
    this.#pending.clear();
    if (entries.length === 0) return;
    this.#sql.exec(
      `INSERT INTO meta (key, value) VALUES ${entries.map(() => "(?, ?)").join(", ")}
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ...entries.flat(),
    );
    const meta = this.#metaValues();
    for (const [key, value] of entries) meta.set(key, value);
  }

  /** The scope this object serves, once known. */
  scope(): WorkspaceScope | null {
    const agent = this.meta("agent");
    const owner = this.meta("owner");
    return agent === null || owner === null ? null : { agent, owner };
  }

  /** The number of the latest change (0 before any). */
  changeSeq(): number {
    return Number(this.meta("change_seq") ?? 0);
  }

  /** Allocates the next `count` change numbers (one statement); returns the first. */
  nextSeq(count = 1): number {
    const next = this.changeSeq() + 1;
    this.setMeta({ change_seq: String(next + count - 1) });
    return next;
  }

  /** The row of `path`, if present. */
  get(path: string): FileRow | null {
    const row = this.#rows().get(path);
    return row ? { ...row } : null;
  }

  /** Points `path` at a blob as change `seq`. */
  put(path: string, hash: string, size: number, updatedAt: string, seq: number): void {
    upsertRow(this.#sql, "files", ["path"], { path, hash, size, updated_at: updatedAt, seq });
    this.#rows().set(path, { path, hash, size, updated_at: updatedAt, seq });
  }

  /** Removes `path` (the caller moves the change counter on: a deletion is a change). */
  remove(path: string): void {
    this.#sql.exec("DELETE FROM files WHERE path = ?", path);
    this.#rows().delete(path);
  }

  /** Every row, sorted by path. */
  rows(): FileRow[] {
    return [...this.#rows().values()]
      .map((r) => ({ ...r }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Rows whose path starts with `prefix` ("" = all), sorted by path. */
  withPrefix(prefix: string): FileRow[] {
    return this.rows().filter((r) => r.path.startsWith(prefix));
  }

  /** Entries under `prefix`, as listed. */
  list(prefix: string): WorkspaceEntry[] {
    return this.withPrefix(prefix).map((r) => ({
      path: r.path,
      size: r.size,
      updatedAt: r.updated_at,
    }));
  }

  /** How many files the workspace holds. */
  count(): number {
    return this.#rows().size;
  }

  /** Records that a checkpoint exists (its files may reference blobs the manifest no longer does). */
  noteCheckpoint(): void {
    this.#checkpoints = true;
  }

  /** Whether the manifest or any checkpoint references the blob `hash` (so it exists in R2). */
  referenced(hash: string): boolean {
    for (const row of this.#rows().values()) if (row.hash === hash) return true;
    if (this.#checkpoints === false) return false;
    return (
      this.#sql.exec("SELECT 1 FROM checkpoint_files WHERE hash = ? LIMIT 1", hash).toArray()
        .length > 0
    );
  }

  /** Whether a path other than `path` changed after change number `seq`. */
  othersChangedAfter(seq: number, path: string): boolean {
    for (const row of this.#rows().values()) if (row.seq > seq && row.path !== path) return true;
    return false;
  }

  /** Removes every row (before a restore). */
  clear(): void {
    this.#sql.exec("DELETE FROM files");
    this.#files.set(new Map());
  }

  #metaValues(): Map<string, string> {
    return this.#meta.value;
  }

  #rows(): Map<string, FileRow> {
    return this.#files.value;
  }
}
