/**
 * The journal of a task's tool calls, in the object's SQLite (`tool_journal`), one row per call
 * keyed by its `tool_use` id: written as the call starts (before its tool can act), and again
 * with its result as it ends, each in its own write, so a restart in the middle of a turn knows
 * which calls finished (their results kept), which started and never returned, and which never
 * started. A result stays until the turn's results reach the conversation, then its text goes
 * (the row stays: when the call ran and how often). Results are tool output of any length, so a
 * long one is stored in pieces (store/long-values.ts). Synchronous SQL only.
 */
import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { PendingCall } from "../../loop/calls/suspension.ts";
import type { JournalEntry, ToolJournal } from "../../loop/step-types.ts";
import { storedJson } from "../../platform/stored-json.ts";
import { LongValues } from "../../store/long-values.ts";

/** The long-value key of a call's result. */
const resultKey = (callId: string) => `tool_journal:${callId}`;

interface JournalRow {
  runs: number;
  result_json: string | null;
  [key: string]: SqlStorageValue;
}

/** A row of the journal as tests and tools read it. */
export interface JournalRecord {
  callId: string;
  turn: number;
  name: string;
  /** How many times the call started (1 unless a read-only call was run again). */
  runs: number;
  /** Whether it returned. */
  finished: boolean;
}

/** The task's tool call journal (see the module header). */
export class SqlToolJournal implements ToolJournal {
  readonly #sql: SqlStorage;
  readonly #long: LongValues;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#long = new LongValues(sql);
  }

  entry(callId: string): JournalEntry | null {
    const row = this.#sql
      .exec<JournalRow>("SELECT runs, result_json FROM tool_journal WHERE call_id = ?", callId)
      .toArray()[0];
    if (!row) return null;
    const result =
      row.result_json === null
        ? null
        : storedJson<ToolResultBlockParam>(this.#long.get(resultKey(callId), row.result_json));
    return { runs: row.runs, result };
  }

  started(call: PendingCall, turn: number): void {
    this.#sql.exec(
      `INSERT INTO tool_journal (call_id, turn, name, runs, started_at) VALUES (?, ?, ?, 1, ?)
       ON CONFLICT (call_id) DO UPDATE SET runs = runs + 1, started_at = excluded.started_at`,
      call.id,
      turn,
      call.name,
      Date.now(),
    );
  }

  finished(callId: string, result: ToolResultBlockParam): void {
    const json = this.#long.put(resultKey(callId), JSON.stringify(result), true);
    this.#sql.exec(
      "UPDATE tool_journal SET result_json = ?, ended_at = ? WHERE call_id = ?",
      json,
      Date.now(),
      callId,
    );
  }

  committed(callIds: readonly string[]): void {
    for (const id of callIds) {
      this.#long.drop("SELECT ?", resultKey(id));
      this.#sql.exec(
        "UPDATE tool_journal SET result_json = NULL WHERE call_id = ? AND result_json IS NOT NULL",
        id,
      );
    }
  }

  /** Every call of the task, in the order they started. */
  all(): JournalRecord[] {
    return this.#sql
      .exec<{ call_id: string; turn: number; name: string; runs: number; ended_at: number | null }>(
        "SELECT call_id, turn, name, runs, ended_at FROM tool_journal ORDER BY started_at, rowid",
      )
      .toArray()
      .map((row) => ({
        callId: row.call_id,
        turn: row.turn,
        name: row.name,
        runs: row.runs,
        finished: row.ended_at !== null,
      }));
  }
}
