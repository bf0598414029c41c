/**
 * A task's sub-agent runs, as the parent knows them: which child answers which tool call, and the
 * latest report each child sent (its state, its answer or question, its usage). Reports carry the
 * child's row version, so a late retry never replaces a newer one. In the parent's SQLite; a
 * report long enough to grow with the child's answer is stored in pieces (store/long-values.ts).
 */
import type { Usage } from "../../model/usage.ts";
import type { Part, TaskStateName } from "../../protocol/wire.ts";
import { LongValues } from "../../store/long-values.ts";
import { type RowOf, withJson } from "../../store/row-copy.ts";

/** What a child tells its parent when it settles (ends or waits for input). */
export interface ChildReport {
  state: TaskStateName;
  /** The answer (completed), the reason (failed, canceled), or empty. */
  text: string;
  /** The child's question when it waits for input. */
  question?: Part[];
  usage: Usage;
  /** The child's row version when it reported. */
  version: number;
}

/** A child as the parent records it. */
export interface ChildRecord {
  id: string;
  agent: string;
  /** Where it runs: `local` (a task object here) or the remote agent's registry name. */
  transport: string;
  report: ChildReport | null;
  /** Version of the last question passed up and answered (0 = none). */
  answeredVersion: number;
  /** Usage already added to the parent's totals, so each report adds only the difference. */
  countedUsage: Usage | null;
}

/** A child's columns, as its fields (report and counted usage as JSON text). */
const CHILD_FIELDS = `id, agent, transport, report_json AS report, answered_version AS answeredVersion,
  counted_usage_json AS countedUsage`;

/** The key of a child's long report (store/long-values.ts). */
const reportKey = (id: string) => `children:${id}`;

/** The `children` table. */
export class ChildrenStore {
  readonly #sql: SqlStorage;
  readonly #long: LongValues;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#long = new LongValues(sql);
  }

  add(id: string, agent: string, transport: string): void {
    this.#sql.exec(
      "INSERT OR IGNORE INTO children (id, agent, transport, answered_version) VALUES (?, ?, ?, 0)",
      id,
      agent,
      transport,
    );
  }

  get(id: string): ChildRecord | null {
    const row = this.#sql
      .exec<RowOf<{ id: string }>>(`SELECT ${CHILD_FIELDS} FROM children WHERE id = ?`, id)
      .toArray()[0];
    return row ? this.#fromRow(row) : null;
  }

  all(): ChildRecord[] {
    return this.#sql
      .exec<RowOf<{ id: string }>>(`SELECT ${CHILD_FIELDS} FROM children ORDER BY rowid`)
      .toArray()
      .map((row) => this.#fromRow(row));
  }

  /** Records a report unless a newer one is stored; true when it was recorded. */
  report(id: string, report: ChildReport): boolean {
    const current = this.get(id);
    if (!current || (current.report && current.report.version >= report.version)) return false;
    const stored = this.#long.put(reportKey(id), JSON.stringify(report), current.report !== null);
    this.#sql.exec("UPDATE children SET report_json = ? WHERE id = ?", stored, id);
    return true;
  }

  markAnswered(id: string, version: number): void {
    this.#sql.exec("UPDATE children SET answered_version = ? WHERE id = ?", version, id);
  }

  setCountedUsage(id: string, usage: Usage): void {
    this.#sql.exec(
      "UPDATE children SET counted_usage_json = ? WHERE id = ?",
      JSON.stringify(usage),
      id,
    );
  }

  /** A row as its record, a long report joined back from its pieces. */
  #fromRow(row: RowOf<{ id: string }>): ChildRecord {
    const { report } = row;
    if (typeof report === "string")
      row = { ...row, report: this.#long.get(reportKey(row.id), report) };
    return withJson(row, ["report", "countedUsage"]);
  }
}
