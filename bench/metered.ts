/**
 * The bench's metered figures, read from a harness started with `STORAGE_METER=true` (its
 * wrappers would slow a timed server, so this is a second one): D1 statements and R2 operations
 * per blocking task (GET/DELETE /api/admin/storage-meter), and the critical-path ledger of one
 * one-turn task at a time, blocking and streaming: the Durable Object calls, D1 round trips and
 * R2 operations that ended before the client's wait did (the `response SendMessage` mark, the
 * `first-event` mark), each kind with the sum of its times, the SQL statements each kind of
 * object ran by then, and the D1 and R2 round trips that ended before the first model call
 * started (the `model` mark); what came after is the task's background work. "Before" means
 * ended before the mark, so a call the task started without waiting for it counts there too when
 * it happened to end in time (the names printed show which). One task at a time, with the
 * server quiet before and after, so everything in the ledger belongs to that task.
 */

interface StorageCounts {
  d1: { statements: number; reads: number; writes: number };
  r2: Record<string, number>;
  r2ClassA: number;
  r2ClassB: number;
}

interface LedgerEntry {
  kind: "do" | "d1" | "r2" | "sql" | "mark";
  name: string;
  at: number;
  ms: number;
  /** A SQL statement's first words. */
  sql?: string;
}

type Metered = StorageCounts & { ledger?: { entries: LedgerEntry[]; dropped: number } };

async function meter(base: string, adminKey: string, method: "GET" | "DELETE"): Promise<Metered> {
  const response = await fetch(`${base}/api/admin/storage-meter`, {
    method,
    headers: { Authorization: `Bearer ${adminKey}` },
  });
  if (!response.ok) throw new Error(`storage meter: HTTP ${response.status}`);
  return (await response.json()) as Metered;
}

/** Reads the meter until two reads 300 ms apart agree (the tasks' background work is done). */
async function settled(base: string, adminKey: string): Promise<Metered> {
  let last = await meter(base, adminKey, "GET");
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await meter(base, adminKey, "GET");
    const same = JSON.stringify(now) === JSON.stringify(last);
    last = now;
    if (same) break;
  }
  return last;
}

/** D1 statements and R2 operations per blocking task, once the tasks' background work is done. */
export async function storagePerTask(
  base: string,
  adminKey: string,
  tasks: number,
  send: () => Promise<unknown>,
) {
  await new Promise((r) => setTimeout(r, 1_000));
  await meter(base, adminKey, "DELETE");
  for (let i = 0; i < tasks; i++) await send();
  const last = await settled(base, adminKey);
  const per = (x: number) => x / tasks;
  return {
    tasks,
    d1: {
      statements: per(last.d1.statements),
      reads: per(last.d1.reads),
      writes: per(last.d1.writes),
    },
    r2: Object.fromEntries(Object.entries(last.r2).map(([k, v]) => [k, per(v)])),
    r2ClassA: per(last.r2ClassA),
    r2ClassB: per(last.r2ClassB),
  };
}

/** Round trips of one kind: how many, and the sum of their times (ms). */
interface Trips {
  count: number;
  ms: number;
}
/** One side of a mark: round trips by kind, SQL statements by object, and their names. */
interface Side {
  do: Trips;
  d1: Trips;
  r2: Trips;
  sql: Record<string, number>;
  calls: Record<string, number>;
  /** SQL statements by object and first words (`task: INSERT INTO events ...`). */
  statements: Record<string, number>;
}

const emptySide = (): Side => ({
  do: { count: 0, ms: 0 },
  d1: { count: 0, ms: 0 },
  r2: { count: 0, ms: 0 },
  sql: {},
  calls: {},
  statements: {},
});

function add(side: Side, e: LedgerEntry): void {
  if (e.kind === "mark") return;
  if (e.kind === "sql") {
    side.sql[e.name] = (side.sql[e.name] ?? 0) + 1;
    const statement = `${e.name}: ${e.sql ?? "?"}`;
    side.statements[statement] = (side.statements[statement] ?? 0) + 1;
    return;
  }
  side[e.kind].count += 1;
  side[e.kind].ms += e.ms;
  // Keys and SQL name ids (task, owner, blob hash): masked, so the same call adds up over tasks.
  const masked = e.name.replace(/[0-9a-f]{8,}(-[0-9a-f]{4,})*/g, "*");
  const name = e.kind === "do" ? masked : `${e.kind} ${masked}`;
  side.calls[name] = (side.calls[name] ?? 0) + 1;
}

/** One task's ledger split at the first mark starting with `mark`. */
function split(entries: LedgerEntry[], mark: string) {
  const at = entries.find((e) => e.kind === "mark" && e.name.startsWith(mark))?.at;
  if (at === undefined) throw new Error(`the ledger has no mark '${mark}'`);
  const model = entries.find((e) => e.kind === "mark" && e.name === "model")?.at ?? at;
  const before = emptySide();
  const after = emptySide();
  let storageBeforeModel = 0;
  for (const e of entries) {
    const end = e.at + e.ms;
    add(end <= at ? before : after, e);
    if ((e.kind === "d1" || e.kind === "r2") && end <= model) storageBeforeModel += 1;
  }
  return { before, after, storageBeforeModel, markMs: at };
}

/** The mean of the splits of `tasks` runs of `run` (after two warm-up runs). */
async function ledgerOf(
  base: string,
  adminKey: string,
  tasks: number,
  mark: string,
  run: () => Promise<unknown>,
) {
  for (let i = 0; i < 2; i++) await run();
  const splits: Array<ReturnType<typeof split>> = [];
  for (let i = 0; i < tasks; i++) {
    await settled(base, adminKey);
    await meter(base, adminKey, "DELETE");
    await run();
    const { ledger } = await settled(base, adminKey);
    if (!ledger) throw new Error("this build has no ledger");
    splits.push(split(ledger.entries, mark));
  }
  const mean = (pick: (s: ReturnType<typeof split>) => Side): Side => {
    const out = emptySide();
    for (const s of splits) {
      const side = pick(s);
      for (const k of ["do", "d1", "r2"] as const) {
        out[k].count += side[k].count / tasks;
        out[k].ms += side[k].ms / tasks;
      }
      for (const [k, v] of Object.entries(side.sql)) out.sql[k] = (out.sql[k] ?? 0) + v / tasks;
      for (const [k, v] of Object.entries(side.calls))
        out.calls[k] = (out.calls[k] ?? 0) + v / tasks;
      for (const [k, v] of Object.entries(side.statements))
        out.statements[k] = (out.statements[k] ?? 0) + v / tasks;
    }
    return out;
  };
  return {
    tasks,
    before: mean((s) => s.before),
    after: mean((s) => s.after),
    storageBeforeModel: splits.reduce((sum, s) => sum + s.storageBeforeModel, 0) / tasks,
    markMs: splits.reduce((sum, s) => sum + s.markMs, 0) / tasks,
  };
}

/** The critical-path ledger of a blocking and of a streaming one-turn task. */
export async function criticalPath(
  base: string,
  adminKey: string,
  tasks: number,
  calls: { send: () => Promise<unknown>; stream: () => Promise<unknown> },
) {
  return {
    blocking: await ledgerOf(base, adminKey, tasks, "response SendMessage", calls.send),
    streaming: await ledgerOf(base, adminKey, tasks, "first-event", calls.stream),
  };
}

/** Prints {@link criticalPath}'s result as a table and the calls on the critical path. */
export function printCriticalPath(ledger: Awaited<ReturnType<typeof criticalPath>>): void {
  const f = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  const trips = (t: Trips) => `${f(t.count)} (${t.ms.toFixed(1)} ms)`;
  const labels = ["task", "context", "workspace", "user"];
  const sql = (s: Side) => labels.map((l) => f(s.sql[l] ?? 0)).join(" / ");
  const { blocking: b, streaming: s } = ledger;
  console.log(
    `\ncritical-path ledger per one-turn task (ours, STORAGE_METER, ${b.tasks} tasks each, on the metered server; a round trip is before the mark when it ended before it; ms = the sum of their times, nested calls counted in their caller's too):`,
  );
  console.log(
    "| | blocking: before the response | after it | streaming: before the first event | after it |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const row = (name: string, cell: (side: Side) => string) =>
    console.log(
      `| ${name} | ${cell(b.before)} | ${cell(b.after)} | ${cell(s.before)} | ${cell(s.after)} |`,
    );
  row("Durable Object calls", (x) => trips(x.do));
  row("D1 round trips", (x) => trips(x.d1));
  row("R2 operations", (x) => trips(x.r2));
  row("SQL statements (task / context / workspace / user object)", sql);
  console.log(
    `| D1 + R2 round trips ended before the first model call started | ${f(b.storageBeforeModel)} | | ${f(s.storageBeforeModel)} | |`,
  );
  console.log(
    `| ms from the meter's reset (just before the request) to the mark | ${b.markMs.toFixed(1)} | | ${s.markMs.toFixed(1)} | |`,
  );
  const names = (side: Side) =>
    Object.entries(side.calls)
      .map(([k, v]) => `${k}${v === 1 ? "" : ` x${f(v)}`}`)
      .join(", ") || "none";
  console.log(`blocking, before the response: ${names(b.before)}`);
  console.log(`blocking, after it: ${names(b.after)}`);
  console.log(`streaming, before the first event: ${names(s.before)}`);
  // Where a blocking task's statements go, before and after its response together.
  const all: Record<string, number> = { ...b.before.statements };
  for (const [k, v] of Object.entries(b.after.statements)) all[k] = (all[k] ?? 0) + v;
  const total = Object.values(all).reduce((a, v) => a + v, 0);
  console.log(
    `\nSQL statements of a blocking one-turn task (${f(total)} in all), by object and statement:`,
  );
  for (const [statement, count] of Object.entries(all).sort((x, y) => y[1] - x[1]))
    console.log(`  ${f(count).padStart(4)}  ${statement}`);
}
