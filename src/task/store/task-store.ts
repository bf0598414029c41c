/**
 * The task's own record in its Durable Object's SQLite: identity, status, history, artifacts.
 * The object is their only writer, so reads are served from in-memory copies (read once, or
 * none at all for a new database). History and artifacts go to SQLite first, then to the copy;
 * the task row is written once per unit of work (write-unit.ts), at its end, with the values it
 * has then (a new task's first status changes cost no statement of their own).
 * {@link TaskStore.forget} drops the copies after a unit rolled back. A JSON value long enough to
 * grow with the answer (a history message, an artifact, the status) is stored in pieces
 * (long-values.ts), so that no stored value nears SQLite's limit.
 */
import { storedJson } from "../../platform/stored-json.ts";
import { storedTaskState } from "../../protocol/task-states.ts";
import type { Artifact, Message, Task, TaskStateName, TaskStatus } from "../../protocol/wire.ts";
import { LongValues } from "../../store/long-values.ts";
import { copyOfRows, type RowCopy } from "../../store/row-copy.ts";
import { advanceClock, NEW_CLOCK, type TaskClock } from "./time-limit.ts";
import type { UnitMember, WriteUnit } from "./write-unit.ts";

/** The task row. */
export interface TaskRecord {
  id: string;
  contextId: string;
  agent: string;
  owner: string;
  /**
   * The user object that counts the task's token budgets (`user:<id>`, or `ip:<address>` for an
   * anonymous caller's task); null = `user:<owner>`.
   */
  counters: string | null;
  traceId: string;
  parentTaskId: string | null;
  state: TaskStateName;
  status: TaskStatus;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  version: number;
  /** How long it has worked, for `MAX_TASK_SECONDS` (time-limit.ts); kept by {@link TaskStore.update}. */
  clock: TaskClock;
}

interface TaskRow {
  id: string;
  context_id: string;
  agent: string;
  owner: string;
  counters: string | null;
  trace_id: string;
  parent_task_id: string | null;
  state: string;
  status_json: string;
  metadata_json: string;
  created_at: string;
  updated_at: string;
  version: number;
  worked_ms: number;
  working_since: string | null;
  [key: string]: SqlStorageValue;
}

/** The keys of the long values this store keeps (long-values.ts). */
const STATUS_KEY = "task:status";
const historyKey = (seq: number) => `history:${seq}`;
const artifactKey = (id: string) => `artifacts:${id}`;

function fromRow(row: TaskRow, long: LongValues): TaskRecord {
  return {
    id: row.id,
    contextId: row.context_id,
    agent: row.agent,
    owner: row.owner,
    counters: row.counters,
    traceId: row.trace_id,
    parentTaskId: row.parent_task_id,
    state: storedTaskState(row.state),
    status: storedJson<TaskStatus>(long.get(STATUS_KEY, row.status_json)),
    metadata: storedJson<Record<string, unknown>>(row.metadata_json),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    clock: { workedMs: row.worked_ms, workingSince: row.working_since },
  };
}

/** A history message and its position. */
interface HistoryEntry {
  seq: number;
  message: Message;
}

/** The task's row, history and artifacts. */
export class TaskStore implements UnitMember {
  readonly #sql: SqlStorage;
  readonly #unit: WriteUnit;
  readonly #long: LongValues;
  #record: TaskRecord | null = null;
  /** The stored status is in pieces (so replacing it drops them). */
  #statusLong = false;
  /** What the running unit owes the task row: a new row, an update, or nothing. */
  #owed: "insert" | "update" | null = null;
  readonly #history: RowCopy<HistoryEntry[]>;
  readonly #artifacts: RowCopy<Artifact[]>;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, unit: WriteUnit, fresh = false) {
    this.#sql = sql;
    this.#unit = unit;
    this.#long = new LongValues(sql);
    unit.join(this);
    const long = this.#long;
    this.#history = copyOfRows(
      sql,
      "SELECT seq, message_json FROM history ORDER BY seq",
      (r: { seq: number; message_json: string }) => ({
        seq: r.seq,
        message: storedJson<Message>(long.get(historyKey(r.seq), r.message_json)),
      }),
      fresh,
    );
    this.#artifacts = copyOfRows(
      sql,
      "SELECT artifact_id, artifact_json FROM artifacts ORDER BY position",
      (r: { artifact_id: string; artifact_json: string }) =>
        storedJson<Artifact>(long.get(artifactKey(r.artifact_id), r.artifact_json)),
      fresh,
    );
    if (!fresh) this.forget();
  }

  /** Drops the in-memory copies (after a rollback): the next read takes them from SQLite. */
  forget(): void {
    this.#owed = null;
    const row = this.#sql.exec<TaskRow>("SELECT * FROM task LIMIT 1").toArray()[0];
    this.#record = row ? fromRow(row, this.#long) : null;
    this.#statusLong = row?.status_json === "";
    this.#history.forget();
    this.#artifacts.forget();
  }

  /** The task row, or null when this object holds no task. */
  get record(): TaskRecord | null {
    return this.#record;
  }

  /** Writes the task row the unit created or changed, as it is now. */
  flush(): void {
    const owed = this.#owed;
    this.#owed = null;
    if (!owed || !this.#record) return;
    if (owed === "insert") this.#insertRow(this.#record);
    else this.#updateRow(this.#record);
  }

  /** Creates the task row (written at the end of the running unit). */
  insert(record: Omit<TaskRecord, "version" | "updatedAt" | "clock">): TaskRecord {
    const full: TaskRecord = {
      ...record,
      updatedAt: record.createdAt,
      version: 1,
      clock: advanceClock(NEW_CLOCK, record.status),
    };
    this.#unit.run(() => {
      this.#record = full;
      this.#owed = "insert";
    });
    return full;
  }

  #insertRow(full: TaskRecord): void {
    this.#sql.exec(
      `INSERT INTO task (id, context_id, agent, owner, counters, trace_id, parent_task_id, state,
        status_json, metadata_json, created_at, updated_at, version, worked_ms, working_since)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      full.id,
      full.contextId,
      full.agent,
      full.owner,
      full.counters,
      full.traceId,
      full.parentTaskId,
      full.state,
      this.#statusJson(full.status),
      JSON.stringify(full.metadata),
      full.createdAt,
      full.updatedAt,
      full.version,
      full.clock.workedMs,
      full.clock.workingSince,
    );
  }

  /**
   * Sets a new status (and metadata), bumping the row version (written at the end of the running
   * unit); the work clock follows it.
   */
  update(status: TaskStatus, metadata: Record<string, unknown>): TaskRecord {
    const current = this.#require();
    const next: TaskRecord = {
      ...current,
      state: status.state,
      status,
      metadata,
      updatedAt: status.timestamp,
      version: current.version + 1,
      clock: advanceClock(current.clock, status),
    };
    this.#unit.run(() => {
      this.#record = next;
      this.#owed ??= "update";
    });
    return next;
  }

  #updateRow(next: TaskRecord): void {
    this.#sql.exec(
      `UPDATE task SET state = ?, status_json = ?, metadata_json = ?, updated_at = ?, version = ?,
        worked_ms = ?, working_since = ?`,
      next.state,
      this.#statusJson(next.status),
      JSON.stringify(next.metadata),
      next.updatedAt,
      next.version,
      next.clock.workedMs,
      next.clock.workingSince,
    );
  }

  /** What the task row's `status_json` stores for `status` (its pieces written, the old ones gone). */
  #statusJson(status: TaskStatus): string {
    const stored = this.#long.put(STATUS_KEY, JSON.stringify(status), this.#statusLong);
    this.#statusLong = stored === "";
    return stored;
  }

  /** True when this task already took a client message with this id (it is in the history). */
  hasSeen(messageId: string): boolean {
    return this.#entries().some(
      (e) => e.message.role === "ROLE_USER" && e.message.messageId === messageId,
    );
  }

  /** Appends a message to the task's history. */
  appendHistory(message: Message): void {
    const entries = this.#entries();
    const seq = (entries.at(-1)?.seq ?? 0) + 1;
    this.#sql.exec(
      "INSERT INTO history (seq, message_json) VALUES (?, ?)",
      seq,
      this.#long.put(historyKey(seq), JSON.stringify(message)),
    );
    entries.push({ seq, message });
  }

  /** The most recent `limit` history messages (all when undefined), oldest first. */
  history(limit?: number): Message[] {
    const entries = this.#entries();
    const kept = limit === undefined ? entries : entries.slice(Math.max(0, entries.length - limit));
    return kept.map((e) => e.message);
  }

  /** History messages after position `seq`, with their positions, oldest first. */
  historyAfter(seq: number): HistoryEntry[] {
    return this.#entries().filter((e) => e.seq > seq);
  }

  /** Stores (or replaces) a finished artifact. */
  putArtifact(artifact: Artifact): void {
    const artifacts = this.artifacts();
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    this.#sql.exec(
      `INSERT INTO artifacts (artifact_id, position, artifact_json) VALUES (?, ?, ?)
       ON CONFLICT (artifact_id) DO UPDATE SET artifact_json = excluded.artifact_json`,
      artifact.artifactId,
      at === -1 ? artifacts.length : at,
      this.#long.put(artifactKey(artifact.artifactId), JSON.stringify(artifact), at !== -1),
    );
    if (at === -1) artifacts.push(artifact);
    else artifacts[at] = artifact;
    this.#artifacts.set(artifacts);
  }

  /** Finished artifacts in creation order. */
  artifacts(): Artifact[] {
    return [...this.#artifacts.value];
  }

  /**
   * The task as the protocol shows it. `historyLength` follows spec 3.2.4 (undefined: all,
   * 0: none); `inProgress` adds artifacts still being streamed.
   */
  toTask(historyLength?: number, inProgress: Artifact[] = []): Task {
    const record = this.#require();
    const artifacts = [...this.artifacts(), ...inProgress];
    const history = historyLength === 0 ? [] : this.history(historyLength);
    return {
      id: record.id,
      contextId: record.contextId,
      status: record.status,
      ...(artifacts.length > 0 ? { artifacts } : {}),
      ...(history.length > 0 ? { history } : {}),
      metadata: record.metadata,
    };
  }

  #entries(): HistoryEntry[] {
    return this.#history.value;
  }

  #require(): TaskRecord {
    if (!this.#record) throw new Error("task object holds no task");
    return this.#record;
  }
}
