/**
 * The workspace manifest in the object's SQLite: which blob (sha256 hash) each path holds, its
 * size, when and by which change number it was last written; plus the object's scope and its
 * change counter (`meta`). Synchronous SQL only; the caller groups calls in transactions.
 */
import type { WorkspaceScope } from "./keys.ts";
import type { WorkspaceEntry } from "./types.ts";

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

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** A meta value. */
  meta(key: string): string | null {
    return (
      this.#sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]
        ?.value ?? null
    );
  }

  /** Sets a meta value. */
  setMeta(key: string, value: string): void {
    this.#sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
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

  /** Allocates the next change number. */
  nextSeq(): number {
    const next = this.changeSeq() + 1;
    this.setMeta("change_seq", String(next));
    return next;
  }

  /** The row of `path`, if present. */
  get(path: string): FileRow | null {
    return this.#sql.exec<FileRow>("SELECT * FROM files WHERE path = ?", path).toArray()[0] ?? null;
  }

  /** Points `path` at a blob as change `seq`. */
  put(path: string, hash: string, size: number, updatedAt: string, seq: number): void {
    this.#sql.exec(
      `INSERT INTO files (path, hash, size, updated_at, seq) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET hash = excluded.hash, size = excluded.size,
         updated_at = excluded.updated_at, seq = excluded.seq`,
      path,
      hash,
      size,
      updatedAt,
      seq,
    );
  }

  /** Every row, sorted by path. */
  rows(): FileRow[] {
    return this.#sql.exec<FileRow>("SELECT * FROM files ORDER BY path").toArray();
  }

  /** Rows whose path starts with `prefix` ("" = all), sorted by path. */
  withPrefix(prefix: string): FileRow[] {
    if (prefix === "") return this.rows();
    return this.#sql
      .exec<FileRow>(
        "SELECT * FROM files WHERE substr(path, 1, ?) = ? ORDER BY path",
        prefix.length,
        prefix,
      )
      .toArray();
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
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM files").one().n;
  }

  /** Whether the manifest or any checkpoint references the blob `hash` (so it exists in R2). */
  referenced(hash: string): boolean {
    return (
      this.#sql
        .exec(
          `SELECT 1 FROM files WHERE hash = ?
           UNION ALL SELECT 1 FROM checkpoint_files WHERE hash = ? LIMIT 1`,
          hash,
          hash,
        )
        .toArray().length > 0
    );
  }

  /** Whether a path other than `path` changed after change number `seq`. */
  othersChangedAfter(seq: number, path: string): boolean {
    return (
      this.#sql.exec("SELECT 1 FROM files WHERE seq > ? AND path != ? LIMIT 1", seq, path).toArray()
        .length > 0
    );
  }

  /** Removes every row (before a restore). */
  clear(): void {
    this.#sql.exec("DELETE FROM files");
  }
}
