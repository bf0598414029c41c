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

  /** The files a task wrote or edited and the lines it added and removed (a person's changes left out). */
  forTask(taskId: string): TaskChanges {
    return this.#sql
      .exec<{ files: number; added: number; removed: number }>(
        `SELECT COUNT(DISTINCT path) AS files, COALESCE(SUM(added), 0) AS added,
           COALESCE(SUM(removed), 0) AS removed
         FROM changes
         WHERE task_id = ? AND op IN ('create', 'write', 'edit') AND person IS NULL`,
        taskId,
      )
      .one();
  }
}
