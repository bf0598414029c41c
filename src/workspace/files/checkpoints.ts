/**
 * Checkpoints of the workspace manifest: a checkpoint copies the manifest rows (never blobs) and
 * remembers the change number it saw, so "did this file change after the latest checkpoint" is a
 * comparison of change numbers. Ids are `cp-<n>`, n counting up per workspace. Restoring replaces
 * the manifest with a checkpoint's rows; rows it leaves as they were keep their change number.
 * Synchronous SQL only; the caller groups calls in transactions.
 */
import { MAX_LABEL_CHARS } from "../limits.ts";
import type { CheckpointInfo } from "../types.ts";
import type { Manifest } from "./manifest.ts";

/** A checkpoint row. */
export interface CheckpointRow {
  id: string;
  n: number;
  label: string;
  created_at: string;
  automatic: number;
  /** The change number current when it was taken. */
  seq: number;
  /** For an automatic checkpoint before a write or edit: the path about to change. */
  path: string | null;
  task_id: string | null;
  [key: string]: SqlStorageValue;
}

type InfoRow = CheckpointRow & { files: number };

const toInfo = (row: InfoRow): CheckpointInfo => ({
  id: row.id,
  label: row.label,
  createdAt: row.created_at,
  files: row.files,
  automatic: row.automatic === 1,
});

const INFO_SELECT = `SELECT c.*, (SELECT COUNT(*) FROM checkpoint_files f WHERE f.checkpoint_id = c.id) AS files
  FROM checkpoints c`;

/** What a checkpoint is taken for. */
export interface CheckpointOrigin {
  automatic: boolean;
  taskId?: string;
  /** The path an automatic checkpoint guards. */
  path?: string;
}

/** Automatic checkpoints kept per workspace (older ones are deleted; blobs stay). */
export const AUTOMATIC_KEPT = 50;

/** The checkpoints of one workspace. */
export class Checkpoints {
  readonly #sql: SqlStorage;
  readonly #manifest: Manifest;
  readonly #kept: number;

  /** `kept`: how many automatic checkpoints survive a prune. */
  constructor(sql: SqlStorage, manifest: Manifest, kept = AUTOMATIC_KEPT) {
    this.#sql = sql;
    this.#manifest = manifest;
    this.#kept = kept;
  }

  /** The newest checkpoint, if any. */
  latest(): CheckpointRow | null {
    return (
      this.#sql
        .exec<CheckpointRow>("SELECT * FROM checkpoints ORDER BY n DESC LIMIT 1")
        .toArray()[0] ?? null
    );
  }

  /** Copies the manifest into a new checkpoint. */
  create(label: string, now: string, origin: CheckpointOrigin): CheckpointInfo {
    const n = this.#sql
      .exec<{ n: number }>("SELECT COALESCE(MAX(n), 0) + 1 AS n FROM checkpoints")
      .one().n;
    const id = `cp-${n}`;
    this.#sql.exec(
      `INSERT INTO checkpoints (id, n, label, created_at, automatic, seq, path, task_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      n,
      label,
      now,
      origin.automatic ? 1 : 0,
      this.#manifest.changeSeq(),
      origin.path ?? null,
      origin.taskId ?? null,
    );
    this.#sql.exec(
      `INSERT INTO checkpoint_files (checkpoint_id, path, hash, size)
       SELECT ?, path, hash, size FROM files`,
      id,
    );
    this.#manifest.noteCheckpoint();
    if (origin.automatic) this.#prune();
    return this.info(id) as CheckpointInfo;
  }

  /** Keeps the newest `kept` automatic checkpoints; the agent's own are never pruned. */
  #prune(): void {
    const old = this.#sql
      .exec<{ id: string }>(
        "SELECT id FROM checkpoints WHERE automatic = 1 ORDER BY n DESC LIMIT -1 OFFSET ?",
        this.#kept,
      )
      .toArray()
      .map((r) => r.id);
    for (const id of old) {
      this.#sql.exec("DELETE FROM checkpoint_files WHERE checkpoint_id = ?", id);
      this.#sql.exec("DELETE FROM checkpoints WHERE id = ?", id);
      this.#sql.exec("DELETE FROM task_checkpoints WHERE checkpoint_id = ?", id);
    }
  }

  /** A checkpoint as listed, if it exists. */
  info(id: string): CheckpointInfo | null {
    const row = this.#sql.exec<InfoRow>(`${INFO_SELECT} WHERE c.id = ?`, id).toArray()[0];
    return row ? toInfo(row) : null;
  }

  /** The content (hash) `path` had at checkpoint `id`, or null. */
  fileAt(id: string, path: string): string | null {
    return (
      this.#sql
        .exec<{ hash: string }>(
          "SELECT hash FROM checkpoint_files WHERE checkpoint_id = ? AND path = ?",
          id,
          path,
        )
        .toArray()[0]?.hash ?? null
    );
  }

  /** The distinct contents (hashes) of `path` the checkpoints hold, newest first. */
  versionsOf(
    path: string,
    limit: number,
  ): Array<{ checkpoint: string; createdAt: string; hash: string }> {
    const seen = new Set<string>();
    const out: Array<{ checkpoint: string; createdAt: string; hash: string }> = [];
    const rows = this.#sql.exec<{ id: string; created_at: string; hash: string }>(
      `SELECT c.id, c.created_at, f.hash FROM checkpoint_files f
         JOIN checkpoints c ON c.id = f.checkpoint_id
       WHERE f.path = ? ORDER BY c.n DESC`,
      path,
    );
    for (const row of rows) {
      if (seen.has(row.hash)) continue;
      seen.add(row.hash);
      out.push({ checkpoint: row.id, createdAt: row.created_at, hash: row.hash });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Every checkpoint, newest first. */
  list(): CheckpointInfo[] {
    return this.#sql.exec<InfoRow>(`${INFO_SELECT} ORDER BY c.n DESC`).toArray().map(toInfo);
  }

  /** Why `id` names no checkpoint, with the latest ones. */
  unknown(id: unknown): string {
    const latest = this.latestIds(5);
    return latest.length === 0
      ? `unknown checkpoint ${JSON.stringify(id)}: this workspace has no checkpoints yet`
      : `unknown checkpoint ${JSON.stringify(id)}; the latest are ${latest.join(", ")} (checkpoint_list shows all)`;
  }

  /** The ids of the newest `count` checkpoints. */
  latestIds(count: number): string[] {
    return this.#sql
      .exec<{ id: string }>("SELECT id FROM checkpoints ORDER BY n DESC LIMIT ?", count)
      .toArray()
      .map((r) => r.id);
  }

  /**
   * Replaces the manifest with checkpoint `id`'s rows; returns how many files it holds. Rows
   * whose blob is unchanged keep their change number and time; the others count as one change.
   */
  restore(id: string, now: string): number {
    const current = new Map(this.#manifest.rows().map((r) => [r.path, r]));
    const target = this.#sql
      .exec<{ path: string; hash: string; size: number }>(
        "SELECT path, hash, size FROM checkpoint_files WHERE checkpoint_id = ? ORDER BY path",
        id,
      )
      .toArray();
    let seq: number | null = null;
    const changeSeq = () => {
      seq ??= this.#manifest.nextSeq();
      return seq;
    };
    if (
      target.length !== current.size ||
      target.some((r) => current.get(r.path)?.hash !== r.hash)
    ) {
      changeSeq();
    }
    this.#manifest.clear();
    for (const row of target) {
      const same = current.get(row.path);
      if (same && same.hash === row.hash) {
        this.#manifest.put(row.path, row.hash, row.size, same.updated_at, same.seq);
      } else {
        this.#manifest.put(row.path, row.hash, row.size, now, changeSeq());
      }
    }
    return target.length;
  }

  /** The checkpoint taken before the task's first change. */
  forTask(taskId: string): string | null {
    return (
      this.#sql
        .exec<{ checkpoint_id: string }>(
          "SELECT checkpoint_id FROM task_checkpoints WHERE task_id = ?",
          taskId,
        )
        .toArray()[0]?.checkpoint_id ?? null
    );
  }

  /** Records the task's checkpoint (the first one recorded wins). */
  setForTask(taskId: string, checkpointId: string): void {
    this.#sql.exec(
      "INSERT INTO task_checkpoints (task_id, checkpoint_id) VALUES (?, ?) ON CONFLICT (task_id) DO NOTHING",
      taskId,
      checkpointId,
    );
  }
}

/** Why `label` (trimmed) cannot name a checkpoint, or null. */
export function labelProblem(label: string): string | null {
  if (label === "") return "label is empty: say what state this checkpoint saves";
  if (label.length > MAX_LABEL_CHARS)
    return `label is ${label.length} characters long; the limit is ${MAX_LABEL_CHARS}`;
  return null;
}
