/**
 * A workspace's change history, its equivalent of `git log`: one row per write, edit, deletion,
 * checkpoint and restore, with its time, task, agent, the person when a person made it (an upload
 * or a deletion through the files API, a file sent with a message), path, one line saying what
 * changed and the lines added and removed. The harness's own state-file writes are not logged
 * (their content is shown elsewhere). The newest {@link CHANGE_LOG_KEPT} rows are kept. Synchronous SQL only; the caller
 * groups calls in transactions.
 */

/** Rows kept per workspace (older ones are deleted). */
export const CHANGE_LOG_KEPT = 500;

/** What a logged change did. */
export type ChangeOp = "create" | "write" | "edit" | "delete" | "checkpoint" | "restore";

/** One change, as the history lists it. */
export interface ChangeEntry {
  at: string;
  op: ChangeOp;
  path: string | null;
  /** The task that made it; "" for a person's change through the files API. */
  taskId: string;
  agent: string | null;
  /** The person who made it (a user's id, or `anonymous`); null when a task's agent did. */
  person: string | null;
  /** One line saying what changed. */
  line: string;
  added: number;
  removed: number;
}

interface ChangeRow {
  at: string;
  op: string;
  path: string | null;
  task_id: string;
  agent: string | null;
  person: string | null;
  line: string;
  added: number;
  removed: number;
  [key: string]: SqlStorageValue;
}

/** What a task changed, summed over its logged changes. */
export interface TaskChanges {
  files: number;
  added: number;
  removed: number;
}

/**
 * One file a task changed, over all its changes of it: `created` (it did not exist before the
 * task), `deleted` (the task's last change of it removed it), else `changed`; the lines added and
 * removed summed.
 */
export interface FileChange {
  path: string;
  kind: "created" | "changed" | "deleted";
  added: number;
  removed: number;
}

/** The change log of one workspace. */
export class ChangeLog {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Logs a change (and drops rows beyond the kept number). */
  record(entry: ChangeEntry): void {
    this.#sql.exec(
      `INSERT INTO changes (at, op, path, task_id, agent, person, line, added, removed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      entry.at,
      entry.op,
      entry.path,
      entry.taskId,
      entry.agent,
      entry.person,
      entry.line,
      entry.added,
      entry.removed,
    );
    this.#sql.exec(
      "DELETE FROM changes WHERE n <= (SELECT MAX(n) FROM changes) - ?",
      CHANGE_LOG_KEPT,
    );
  }

  /** The newest `limit` changes, newest first. */
  recent(limit: number): ChangeEntry[] {
    return this.#sql
      .exec<ChangeRow>("SELECT * FROM changes ORDER BY n DESC LIMIT ?", limit)
      .toArray()
      .map((row) => ({
        at: row.at,
        op: row.op as ChangeOp,
        path: row.path,
        taskId: row.task_id,
        agent: row.agent,
        person: row.person,
        line: row.line,
        added: row.added,
        removed: row.removed,
      }));
  }

  /**
   * The files a task created, changed and deleted, in the order it first touched them, with the
   * lines added and removed (a person's changes, checkpoints and restores left out).
   */
  filesOf(taskId: string): FileChange[] {
    const rows = this.#sql
      .exec<{ op: string; path: string; added: number; removed: number }>(
        `SELECT op, path, added, removed FROM changes
         WHERE task_id = ? AND path IS NOT NULL AND person IS NULL
           AND op IN ('create', 'write', 'edit', 'delete')
         ORDER BY n`,
        taskId,
      )
      .toArray();
    const files = new Map<string, FileChange>();
    for (const row of rows) {
      const seen = files.get(row.path);
      const kind =
        row.op === "delete"
          ? "deleted"
          : seen
            ? seen.kind === "deleted"
              ? "changed"
              : seen.kind
            : row.op === "create"
              ? "created"
              : "changed";
      files.set(row.path, {
        path: row.path,
        kind,
        added: (seen?.added ?? 0) + row.added,
        removed: (seen?.removed ?? 0) + row.removed,
      });
    }
    return [...files.values()];
  }
}

/** The totals of a task's file changes: files written or edited (not deleted), lines added and removed. */
export function changeTotals(files: readonly FileChange[]): TaskChanges {
  const kept = files.filter((f) => f.kind !== "deleted");
  return {
    files: kept.length,
    added: files.reduce((n, f) => n + f.added, 0),
    removed: files.reduce((n, f) => n + f.removed, 0),
  };
}
