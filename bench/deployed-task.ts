/**
 * `npm run bench:deployed`: one task on the deployed path. Starts `npm run dev -- --deployed`
 * (wrangler.toml's settings: closed, limits and budgets on) with the storage meter, adds a user,
 * sends `--tasks` one-turn blocking tasks to the default agent as that user (each after the
 * server is quiet) and prints, for the last one: Durable Object calls, object SQL statements and
 * the rows they wrote (and by table), D1 statements and rows written, R2 operations (heads include
 * the agent overrides check the isolate makes while the bench polls the meter), and the
 * sequential round trips the client waited on before the model call started; then one streaming
 * task's sequential round trips before its first event (`--statements`: each statement that wrote).
 * The figures docs/deploy.md's plan table is read from. Not part of `npm test`.
 */
import { parseArgs } from "node:util";
import { messageCallBody } from "../test/e2e/client.ts";
import { startScriptedHarness } from "../test/e2e/dev-server.ts";
import { addUser } from "../test/e2e/users.ts";

interface Entry {
  kind: "do" | "d1" | "r2" | "sql" | "mark";
  name: string;
  at: number;
  ms: number;
  sql?: string;
  rows?: number;
  background?: true;
}
interface Metered {
  d1: { statements: number; writes: number; rowsWritten: number };
  r2: Record<string, number>;
  ledger: { entries: Entry[]; dropped: number };
}

/**
 * The round trips a client waited on, one after another, before mark `mark`, in order: those
 * still running when it was set (the call it is inside, e.g. `TASKS.create`), and the longest
 * chain of finished ones that did not overlap (of parallel ones, one). Round trips of work no
 * caller waits for (`background`: the task index's write) are left out. Null without the mark.
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

const { values } = parseArgs({
  options: { tasks: { type: "string", default: "3" }, statements: { type: "boolean" } },
});
const ADMIN = "bench-admin";
const harness = await startScriptedHarness(
  { STORAGE_METER: "true", ADMIN_API_KEY: ADMIN, AUTH_FAILURES_PER_MINUTE: "0" },
  undefined,
  true,
);
try {
  const { url } = harness.server;
  const token = (await addUser(harness.server, "bench")) ?? "";
  const meter = (method: "GET" | "DELETE") =>
    fetch(`${url}/api/admin/storage-meter`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}` },
    }).then((r) => r.json() as Promise<Metered>);
  const settled = async () => {
    let last = JSON.stringify(await meter("GET"));
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 300));
      const now = JSON.stringify(await meter("GET"));
      if (now === last) break;
      last = now;
    }
    return JSON.parse(last) as Metered;
  };
  /** One one-turn task sent with `method` after the server is quiet: what the meter saw. */
  const meteredTask = async (method: "SendMessage" | "SendStreamingMessage") => {
    await settled();
    await meter("DELETE");
    const body = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "A2A-Version": "1.0",
        Authorization: `Bearer ${token}`,
      },
      body: messageCallBody(method, "[[reply:ok]]"),
    }).then((r) => r.text());
    if (!body.includes("TASK_STATE_COMPLETED")) throw new Error(`${method}: ${body.slice(0, 300)}`);
    return settled();
  };
  let metered: Metered | null = null;
  for (let i = 0; i < Number(values.tasks); i++) metered = await meteredTask("SendMessage");
  if (!metered) throw new Error("no task ran");
  /** One streaming task: the round trips before its first event. */
  const firstEventTrips = async () =>
    sequentialBefore((await meteredTask("SendStreamingMessage")).ledger.entries, "first-event");
  const { entries, dropped } = metered.ledger;
  const of = (kind: Entry["kind"]) => entries.filter((e) => e.kind === kind);
  const calls = new Map<string, number>();
  for (const e of of("do")) calls.set(e.name, (calls.get(e.name) ?? 0) + 1);
  const report = {
    objectCalls: of("do").length,
    byObject: Object.fromEntries(calls),
    objectSqlStatements: of("sql").length,
    objectRowsWritten: of("sql").reduce((sum, e) => sum + (e.rows ?? 0), 0),
    rowsByTable: rowsByTable(entries),
    sequentialBeforeModel: sequentialBefore(entries, "model"),
    d1Statements: metered.d1.statements,
    d1RowsWritten: metered.d1.rowsWritten,
    r2: metered.r2,
    droppedEntries: dropped,
    sequentialBeforeFirstEvent: await firstEventTrips(),
  };
  console.log(JSON.stringify(report, null, 2));
  // --statements: every statement that wrote, in order, with its object and rows.
  if (values.statements)
    for (const e of of("sql")) if (e.rows) console.log(`${e.rows}  ${e.name}  ${e.sql}`);
} finally {
  await harness.stop();
}
