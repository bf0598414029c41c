/**
 * What one one-turn task costs on the deployed path, counted by the storage meter
 * (`STORAGE_METER=true`, `GET`/`DELETE /api/admin/storage-meter`) of a server started with the
 * deployed profile: `tasks` blocking tasks to the default agent (each after the server is quiet),
 * of which the last is reported (Durable Object calls by object and method, object SQL statements
 * and the rows they wrote by table, D1 statements and rows, R2 operations, the sequential round
 * trips before the model call), then two streaming tasks, of which the second is reported (its
 * object calls, and the sequential round trips before its first event); and the round trips of
 * the first of each, which made the isolate's copies and leases. For bench/deployed-task.ts.
 * Node only.
 */
import { messageCallBody } from "../test/e2e/client.ts";
import { type Entry, storageLedger } from "../test/e2e/storage-ledger.ts";
import type { Target } from "./a2a-calls.ts";
import { BENCH_ADMIN_KEY } from "./deployed-profile.ts";

export type { Entry };

interface Metered {
  d1: { statements: number; writes: number; rowsWritten: number };
  r2: Record<string, number>;
  ledger: { entries: Entry[]; dropped: number };
}

/** What {@link countTask} reports. */
export interface DeployedCounts {
  objectCalls: number;
  /** Durable Object calls of the blocking task by `BINDING.method`. */
  byObject: Record<string, number>;
  objectSqlStatements: number;
  objectRowsWritten: number;
  rowsByTable: Record<string, number>;
  sequentialBeforeModel: string[] | null;
  d1Statements: number;
  d1RowsWritten: number;
  r2: Record<string, number>;
  droppedEntries: number;
  /** Durable Object calls of the streaming task by `BINDING.method`. */
  streamingByObject: Record<string, number>;
  sequentialBeforeFirstEvent: string[] | null;
  /**
   * The same of the isolate's first task and first stream: its token checked in D1, its lease of
   * the user's places and of a spare stream slot made (users/admission-lease.ts).
   */
  firstRequest: {
    sequentialBeforeModel: string[] | null;
    sequentialBeforeFirstEvent: string[] | null;
  };
}

/**
 * The round trips a client waited on, one after another, before mark `mark`, in order: those
 * still running when it was set (the call it is inside, e.g. `TASKS.create`), and the longest
 * chain of finished ones that did not overlap (of parallel ones, one). Round trips of work no
 * caller waits for (`background`: the task index's write, the shared memory's refresh) are left
 * out. Null without the mark.
 */
function sequentialBefore(entries: readonly Entry[], mark: string): string[] | null {
  const at = entries.find((e) => e.kind === "mark" && e.name === mark)?.at;
  if (at === undefined) return null;
  const trips = entries.filter(
    (e) => (e.kind === "do" || e.kind === "d1" || e.kind === "r2") && !e.background,
  );
  const enclosing = trips.filter((e) => e.at <= at && e.at + e.ms > at);
  const finished = trips
    .filter((e) => e.at + e.ms <= at)
    .sort((a, b) => a.at + a.ms - (b.at + b.ms));
  const chain: Entry[] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const trip of finished)
    if (trip.at >= end) {
      chain.push(trip);
      end = trip.at + trip.ms;
    }
  return [...enclosing, ...chain].sort((a, b) => a.at - b.at).map((e) => `${e.kind} ${e.name}`);
}

/** Rows written by table (the statement's INSERT INTO / UPDATE / DELETE FROM target). */
function rowsByTable(entries: readonly Entry[]): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const e of entries) {
    if (e.kind !== "sql" || !e.rows) continue;
    const table = /(?:INTO|UPDATE|FROM)\s+"?(\w+)/i.exec(e.sql ?? "")?.[1] ?? "other";
    rows[table] = (rows[table] ?? 0) + e.rows;
  }
  return Object.fromEntries(Object.entries(rows).sort(([, a], [, b]) => b - a));
}

/** Durable Object calls by name. */
function callsOf(entries: readonly Entry[]): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const e of entries) if (e.kind === "do") calls[e.name] = (calls[e.name] ?? 0) + 1;
  return calls;
}

/** Counts `tasks` blocking tasks and one streaming one on the metered `server` (see the header). */
export async function countTask(
  server: Target,
  tasks: number,
): Promise<{ counts: DeployedCounts; statements: Entry[] }> {
  // Quiet: no round trip in flight and nothing new 300 ms later, the meter's own reads left out
  // (each is an invocation of its own), so one task follows another within a second or two.
  const ledger = storageLedger(server.base, BENCH_ADMIN_KEY);
  const meter = ledger.meter;
  const settled = () => ledger.settled() as Promise<unknown> as Promise<Metered>;
  /** One one-turn task sent with `method` after the server is quiet: what the meter saw. */
  const meteredTask = async (method: "SendMessage" | "SendStreamingMessage") => {
    await settled();
    await meter("DELETE");
    const body = await fetch(`${server.base}/`, {
      method: "POST",
      headers: { ...server.headers, "content-type": "application/json", "A2A-Version": "1.0" },
      body: messageCallBody(method, "[[reply:ok]]"),
    }).then((r) => r.text());
    if (!body.includes("TASK_STATE_COMPLETED")) throw new Error(`${method}: ${body.slice(0, 300)}`);
    return settled();
  };
  let metered: Metered | null = null;
  let first: Metered | null = null;
  for (let i = 0; i < tasks; i++) {
    metered = await meteredTask("SendMessage");
    first ??= metered;
  }
  if (!metered || !first) throw new Error("no task ran");
  // The second stream is counted: the first leases the isolate's spare stream slot, as the first
  // blocking task leased its places in the minute (users/admission-lease.ts).
  const firstStream = (await meteredTask("SendStreamingMessage")).ledger.entries;
  const streamed = (await meteredTask("SendStreamingMessage")).ledger.entries;
  const { entries, dropped } = metered.ledger;
  const of = (kind: Entry["kind"]) => entries.filter((e) => e.kind === kind);
  const counts: DeployedCounts = {
    objectCalls: of("do").length,
    byObject: callsOf(entries),
    objectSqlStatements: of("sql").length,
    objectRowsWritten: of("sql").reduce((sum, e) => sum + (e.rows ?? 0), 0),
    rowsByTable: rowsByTable(entries),
    sequentialBeforeModel: sequentialBefore(entries, "model"),
    d1Statements: metered.d1.statements,
    d1RowsWritten: metered.d1.rowsWritten,
    r2: metered.r2,
    droppedEntries: dropped,
    streamingByObject: callsOf(streamed),
    sequentialBeforeFirstEvent: sequentialBefore(streamed, "first-event"),
    firstRequest: {
      sequentialBeforeModel: sequentialBefore(first.ledger.entries, "model"),
      sequentialBeforeFirstEvent: sequentialBefore(firstStream, "first-event"),
    },
  };
  return { counts, statements: of("sql") };
}
