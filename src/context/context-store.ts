/**
 * A conversation's state in its context object's SQLite: the turns of the tasks that ran in it
 * (the history later tasks see), the queue of tasks waiting for their turn, and how far each
 * task's release got (so a retried release is applied once). Synchronous SQL only.
 */

import type { ChatMessage } from "../loop/chat-message.ts";
import { runMigrations } from "../store/sqlite-migrations.ts";

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE turns (seq INTEGER PRIMARY KEY, task_id TEXT NOT NULL, role TEXT NOT NULL, content_json TEXT NOT NULL);
  CREATE TABLE queue (task_id TEXT PRIMARY KEY, position INTEGER NOT NULL, active INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE releases (task_id TEXT PRIMARY KEY, upto INTEGER NOT NULL);
  CREATE TABLE schedule (id TEXT PRIMARY KEY, kind TEXT NOT NULL, due_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, payload_json TEXT);
  `,
];

/** Brings the object's database to the newest schema. */
export function migrateContext(sql: SqlStorage): void {
  runMigrations(sql, MIGRATIONS);
}

/** Turns, queue and releases of one conversation. */
export class ContextStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The task holding the conversation, if any. */
  activeTask(): string | null {
    return (
      this.#sql.exec<{ task_id: string }>("SELECT task_id FROM queue WHERE active = 1").toArray()[0]
        ?.task_id ?? null
    );
  }

  /** Whether the task is queued (waiting or active). */
  isQueued(taskId: string): boolean {
    return this.#sql.exec("SELECT 1 FROM queue WHERE task_id = ?", taskId).toArray().length > 0;
  }

  /** Adds a task at the end of the queue (no-op if queued). */
  enqueue(taskId: string): void {
    this.#sql.exec(
      `INSERT INTO queue (task_id, position) VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM queue))
       ON CONFLICT (task_id) DO NOTHING`,
      taskId,
    );
  }

  /** Makes the first waiting task active when none is; returns the newly active task. */
  promote(): string | null {
    if (this.activeTask() !== null) return null;
    const next = this.#sql
      .exec<{ task_id: string }>("SELECT task_id FROM queue ORDER BY position LIMIT 1")
      .toArray()[0]?.task_id;
    if (!next) return null;
    this.#sql.exec("UPDATE queue SET active = 1 WHERE task_id = ?", next);
    return next;
  }

  /** Removes a task from the queue. */
  dequeue(taskId: string): void {
    this.#sql.exec("DELETE FROM queue WHERE task_id = ?", taskId);
  }

  /** Turns with a sequence number above `after` (other than `exclude`'s own), oldest first, and the last sequence number. */
  turnsAfter(
    after: number,
    exclude = "",
  ): { turns: Array<{ seq: number; message: ChatMessage }>; last: number } {
    const rows = this.#sql
      .exec<{ seq: number; role: string; content_json: string }>(
        "SELECT seq, role, content_json FROM turns WHERE seq > ? AND task_id != ? ORDER BY seq",
        after,
        exclude,
      )
      .toArray();
    return {
      turns: rows.map((r) => ({
        seq: r.seq,
        message: {
          role: r.role as ChatMessage["role"],
          content: JSON.parse(r.content_json) as ChatMessage["content"],
        },
      })),
      last: this.lastSeq(),
    };
  }

  /** Replaces every turn up to `through` with one summary turn (a task compacted them). */
  summarize(through: number, summary: ChatMessage): void {
    const first = this.#sql
      .exec<{ first: number | null }>("SELECT MIN(seq) AS first FROM turns WHERE seq <= ?", through)
      .one().first;
    if (first === null) return;
    this.#sql.exec("DELETE FROM turns WHERE seq <= ?", through);
    this.#sql.exec(
      "INSERT INTO turns (seq, task_id, role, content_json) VALUES (?, 'summary', ?, ?)",
      through,
      summary.role,
      JSON.stringify(summary.content),
    );
  }

  /** The newest turn's sequence number (0 when none). */
  lastSeq(): number {
    return (
      this.#sql.exec<{ last: number | null }>("SELECT MAX(seq) AS last FROM turns").one().last ?? 0
    );
  }

  /** Appends a task's turns unless a release reaching `upto` was already applied. */
  appendRelease(taskId: string, upto: number, turns: readonly ChatMessage[]): boolean {
    const done = this.#sql
      .exec<{ upto: number }>("SELECT upto FROM releases WHERE task_id = ?", taskId)
      .toArray()[0];
    if (done && done.upto >= upto) return false;
    for (const turn of turns) {
      this.#sql.exec(
        "INSERT INTO turns (task_id, role, content_json) VALUES (?, ?, ?)",
        taskId,
        turn.role,
        JSON.stringify(turn.content),
      );
    }
    this.#sql.exec(
      "INSERT INTO releases (task_id, upto) VALUES (?, ?) ON CONFLICT (task_id) DO UPDATE SET upto = excluded.upto",
      taskId,
      upto,
    );
    return true;
  }
}
