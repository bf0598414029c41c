/**
 * A task's sub-agent runs, as the parent knows them: which child answers which tool call, and the
 * latest report each child sent (its state, its answer or question, its usage). Reports carry the
 * child's row version, so a late retry never replaces a newer one. In the parent's SQLite.
 */
import type { Usage } from "../../model/usage.ts";
import type { Part, TaskStateName } from "../../protocol/wire.ts";
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

const fromRow = (row: RowOf<{ id: string }>): ChildRecord =>
  withJson(row, ["report", "countedUsage"]);

/** The `children` table. */
export class ChildrenStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
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
    return row ? fromRow(row) : null;
  }

  all(): ChildRecord[] {
    return this.#sql
      .exec<RowOf<{ id: string }>>(`SELECT ${CHILD_FIELDS} FROM children ORDER BY rowid`)
      .toArray()
      .map(fromRow);
  }

  /** Records a report unless a newer one is stored; true when it was recorded. */
  report(id: string, report: ChildReport): boolean {
    const current = this.get(id);
    if (!current || (current.report && current.report.version >= report.version)) return false;
    this.#sql.exec("UPDATE children SET report_json = ? WHERE id = ?", JSON.stringify(report), id);
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
}
