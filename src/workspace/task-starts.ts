/**
 * What a state file held when a task first changed it: the start the end note measures the
 * task's own change from (PROGRESS.json's items it completed, not the whole list). Recorded by the
 * workspace object before a task's first harness write of a tracked file (see {@link TRACKED}),
 * taken (read and forgotten) by the task's end note; the newest {@link TASK_STARTS_KEPT} rows are
 * kept, so tasks that never end leave a bounded table. Synchronous SQL only.
 */
import { PROGRESS_FILE } from "./state/state-files.ts";

/** Rows kept per workspace (older ones are deleted). */
export const TASK_STARTS_KEPT = 200;

/** The state files whose text at a task's start is kept. */
const TRACKED: ReadonlySet<string> = new Set([PROGRESS_FILE]);

/** The state files' texts at the starts of the tasks that changed them. */
export class TaskStarts {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Whether `path`'s text at `taskId`'s start is still to be recorded. */
  due(taskId: string, path: string): boolean {
    if (!TRACKED.has(path) || taskId === "") return false;
    return (
      this.#sql
        .exec("SELECT 1 FROM task_starts WHERE task_id = ? AND path = ?", taskId, path)
        .toArray().length === 0
    );
  }

  /** Records `path`'s text (null: the file did not exist) at `taskId`'s start. */
  record(taskId: string, path: string, text: string | null): void {
    this.#sql.exec(
      "INSERT OR IGNORE INTO task_starts (task_id, path, text) VALUES (?, ?, ?)",
      taskId,
      path,
      text,
    );
    this.#sql.exec(
      "DELETE FROM task_starts WHERE n <= (SELECT MAX(n) FROM task_starts) - ?",
      TASK_STARTS_KEPT,
    );
  }

  /**
   * `path`'s text at `taskId`'s start and forgets the task's rows: `undefined` when the task never
   * changed it (its text now is its text at the start), null when it did not exist.
   */
  take(taskId: string, path: string): string | null | undefined {
    const rows = this.#sql
      .exec<{ text: string | null }>(
        "SELECT text FROM task_starts WHERE task_id = ? AND path = ?",
        taskId,
        path,
      )
      .toArray();
    this.#sql.exec("DELETE FROM task_starts WHERE task_id = ?", taskId);
    return rows.length === 0 ? undefined : (rows[0]?.text ?? null);
  }
}
