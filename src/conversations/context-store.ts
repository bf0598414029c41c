/**
 * A conversation's state in its context object's SQLite: the turns of the tasks that ran in it
 * (the history later tasks see), the queue of tasks waiting for their turn, and how far each
 * task's release got (so a retried release is applied once). A turn long enough to grow with an
 * answer is stored in pieces (store/long-values.ts). Synchronous SQL only.
 */

import type { ChatMessage } from "../loop/chat-message.ts";
import { storedJson } from "../platform/stored-json.ts";
import { LONG_VALUES_TABLE, LongValues } from "../store/long-values.ts";
import { copyOfMap, copyOfRows, RowCopy, upsertRow } from "../store/row-copy.ts";
import { Schema } from "../store/sqlite-migrations.ts";

/** The object's migrations (exported for the test that holds a new object's schema equal). */
export const CONTEXT_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE turns (seq INTEGER PRIMARY KEY, task_id TEXT NOT NULL, role TEXT NOT NULL, content_json TEXT NOT NULL);
  CREATE TABLE queue (task_id TEXT PRIMARY KEY, position INTEGER NOT NULL, active INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE releases (task_id TEXT PRIMARY KEY, upto INTEGER NOT NULL);
  CREATE TABLE schedule (id TEXT PRIMARY KEY, kind TEXT NOT NULL, due_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, payload_json TEXT);
  `,
  // Long turns, in pieces (store/long-values.ts).
  LONG_VALUES_TABLE,
];

/** The key of a turn's long content (store/long-values.ts). */
const TURN_PREFIX = "turns:";
const turnKey = (seq: number) => `${TURN_PREFIX}${seq}`;

/** The context object's schema on `sql`: migrated if the database holds it, else left absent. */
export function contextSchema(sql: SqlStorage): Schema {
  return Schema.open(sql, CONTEXT_MIGRATIONS);
}

interface QueuedTask {
  taskId: string;
  position: number;
  active: boolean;
}

/**
 * Turns, queue and releases of one conversation. The object is their only writer, so the queue,
 * the releases and the newest turn number are kept in memory once read (from nothing, for a new
 * database); {@link ContextStore.forget} drops them after a transaction rolled back.
 */
export class ContextStore {
  readonly #sql: SqlStorage;
  readonly #long: LongValues;
  readonly #queue: RowCopy<QueuedTask[]>;
  readonly #releases: RowCopy<Map<string, number>>;
  readonly #last: RowCopy<number>;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    this.#long = new LongValues(sql);
    this.#queue = copyOfRows(
      sql,
      "SELECT task_id, position, active FROM queue ORDER BY position",
      (r: { task_id: string; position: number; active: number }) => ({
        taskId: r.task_id,
        position: r.position,
        active: r.active === 1,
      }),
      fresh,
    );
    this.#releases = copyOfMap(
      sql,
      "SELECT task_id, upto FROM releases",
      (r: { task_id: string; upto: number }) => [r.task_id, r.upto],
      fresh,
    );
    this.#last = new RowCopy(
      () => sql.exec<{ last: number | null }>("SELECT MAX(seq) AS last FROM turns").one().last ?? 0,
      fresh ? 0 : undefined,
    );
  }

  /** Drops the in-memory copies: the next read takes them from SQLite. */
  forget(): void {
    this.#queue.forget();
    this.#releases.forget();
    this.#last.forget();
  }

  /** The task holding the conversation, if any. */
  activeTask(): string | null {
    return this.#tasks().find((q) => q.active)?.taskId ?? null;
  }

  /** Whether the task is queued (waiting or active). */
  isQueued(taskId: string): boolean {
    return this.#tasks().some((q) => q.taskId === taskId);
  }

  /** Adds a task at the end of the queue (no-op if queued); into an empty queue, active. */
  enqueue(taskId: string): void {
    const queue = this.#tasks();
    if (this.isQueued(taskId)) return;
    const position = Math.max(0, ...queue.map((q) => q.position)) + 1;
    const active = queue.length === 0;
    this.#sql.exec(
      "INSERT INTO queue (task_id, position, active) VALUES (?, ?, ?)",
      taskId,
      position,
      active ? 1 : 0,
    );
    queue.push({ taskId, position, active });
  }

  /** Makes the first waiting task active when none is; returns the newly active task. */
  promote(): string | null {
    if (this.activeTask() !== null) return null;
    const next = [...this.#tasks()].sort((a, b) => a.position - b.position)[0];
    if (!next) return null;
    this.#sql.exec("UPDATE queue SET active = 1 WHERE task_id = ?", next.taskId);
    next.active = true;
    return next.taskId;
  }

  /** Removes a task from the queue. */
  dequeue(taskId: string): void {
    if (!this.isQueued(taskId)) return;
    this.#sql.exec("DELETE FROM queue WHERE task_id = ?", taskId);
    this.#queue.set(this.#tasks().filter((q) => q.taskId !== taskId));
  }

  /** Turns with a sequence number above `after` (other than `exclude`'s own), oldest first, and the last sequence number. */
  turnsAfter(
    after: number,
    exclude = "",
  ): { turns: Array<{ seq: number; message: ChatMessage }>; last: number } {
    const last = this.lastSeq();
    if (after >= last) return { turns: [], last };
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
          content: storedJson<ChatMessage["content"]>(
            this.#long.get(turnKey(r.seq), r.content_json),
          ),
        },
      })),
      last,
    };
  }

  /** Replaces every turn up to `through` with one summary turn (a task compacted them). */
  summarize(through: number, summary: ChatMessage): void {
    const first = this.#sql
      .exec<{ first: number | null }>("SELECT MIN(seq) AS first FROM turns WHERE seq <= ?", through)
      .one().first;
    if (first === null) return;
    this.#long.drop(
      "SELECT ? || seq FROM turns WHERE seq <= ? AND content_json = ''",
      TURN_PREFIX,
      through,
    );
    this.#sql.exec("DELETE FROM turns WHERE seq <= ?", through);
    this.#sql.exec(
      "INSERT INTO turns (seq, task_id, role, content_json) VALUES (?, 'summary', ?, ?)",
      through,
      summary.role,
      this.#long.put(turnKey(through), JSON.stringify(summary.content)),
    );
  }

  /** The newest turn's sequence number (0 when none). */
  lastSeq(): number {
    return this.#last.value;
  }

  /** Appends a task's turns (one statement) unless a release reaching `upto` was already applied. */
  appendRelease(taskId: string, upto: number, turns: readonly ChatMessage[]): boolean {
    const releases = this.#released();
    const done = releases.get(taskId);
    if (done !== undefined && done >= upto) return false;
    // Rows per statement: a Durable Object's SQL takes at most 100 bound parameters.
    for (let from = 0; from < turns.length; from += 25) {
      const last = this.lastSeq();
      const batch = turns.slice(from, from + 25);
      this.#sql.exec(
        `INSERT INTO turns (seq, task_id, role, content_json) VALUES ${batch.map(() => "(?, ?, ?, ?)").join(", ")}`,
        ...batch.flatMap((turn, i) => [
          last + i + 1,
          taskId,
          turn.role,
          this.#long.put(turnKey(last + i + 1), JSON.stringify(turn.content)),
        ]),
      );
      this.#last.set(last + batch.length);
    }
    upsertRow(this.#sql, "releases", ["task_id"], { task_id: taskId, upto });
    releases.set(taskId, upto);
    return true;
  }

  #tasks(): QueuedTask[] {
    return this.#queue.value;
  }

  #released(): Map<string, number> {
    return this.#releases.value;
  }
}
