/**
 * `npm run bench`: this harness under `wrangler dev` against two peers built on the official
 * @a2a-js/sdk, all on 127.0.0.1 and all calling the same scripted Messages API with zero think
 * time, so only server cost is measured: the **SDK Worker** (bench/sdk-worker/: the SDK's
 * `DefaultRequestHandler` + `JsonRpcTransportHandler` in a Worker under the same `wrangler dev`,
 * tasks in its durable `DatabaseTaskStore` over D1), the same Worker with the SDK's
 * `InMemoryTaskStore` (what `wrangler dev` itself costs; `--no-memory-peer` skips it), and the
 * **Node reference** (bench/reference-server.ts: express, `InMemoryTaskStore`). In alternation
 * (machine drift cancels): an Agent Card fetch (each runtime's floor), a direct model call (the
 * model's floor), a blocking SendMessage; then each server's overhead (SendMessage p50 - card p50 -
 * model p50) and the ratios ours / SDK Worker and ours / Node reference; throughput and p99 at 8
 * and 32 concurrent clients with lost or stuck tasks counted; SendStreamingMessage's time to the
 * first event and to the first answer chunk; D1 statements and R2 operations per task and the
 * critical-path ledger of a one-turn task (the harness's STORAGE_METER, bench/metered.ts,
 * `--ledger-tasks` tasks each, blocking and streaming); CPU ms per task from V8 profiles, ours and
 * the SDK Worker's, after the timed rounds (bench/cpu-bench.ts, `--cpu-tasks` tasks of each kind
 * per pass, default 20, 0 skips it); prompt growth and prompt cache read share over one long
 * conversation (bench/prompt-growth.ts, `--prompt-turns`, 0 skips it); both Workers' bundle sizes
 * (those two in bench/side-runs.ts). `--export` adds ours a second time with its OTLP/HTTP trace
 * export on to a receiver on 127.0.0.1, in every alternation, load run and CPU pass, and prints it
 * beside ours with the ratios on / off and the spans the receiver got per task
 * (bench/trace-export.ts). `--n` samples (default 200), `--load` tasks per load run (default 200),
 * `--json <file>` writes every figure (bench/compare-print.ts prints them). Local state (ours and
 * the SDK Worker's D1) goes on tmpfs (/dev/shm) when there is one, as the Node reference keeps its
 * tasks in memory: `--disk` puts it on disk, where every local SQLite commit waits for the disk.
 * `--deployed` runs ours (and its metered and export-on twins) on the deployed profile (`npm run
 * dev -- --deployed`: closed auth, every call as the bench's user, with its rate limits and budgets
 * on, raised so the bench is never refused: bench/deployed-profile.ts); default: `npm run dev`'s
 * local profile (open, no budgets). The peers stay as they are.
 * Starts what it needs and stops it. Not part of `npm test`.
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { FakeCollector } from "../test/fake-collector/server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";
import { card, send, streamTimes, type Target } from "./a2a-calls.ts";
import { benchServers } from "./bench-servers.ts";
import {
  type CompareReport,
  type LoadRun,
  type Percentiles,
  printCompare,
  ratiosOf,
  type ServerFigures,
} from "./compare-print.ts";
import { CPU_DEFAULTS, type CpuResult, type CpuTarget, profileCpu } from "./cpu-bench.ts";
import { BENCH_ADMIN_KEY } from "./deployed-profile.ts";
import { criticalPath, storagePerTask } from "./metered.ts";
import { percentile } from "./percentile.ts";
import { bundleSize, promptGrowth } from "./side-runs.ts";
import { counted, EXPORT_ON, exportCheck, exportReceiver } from "./trace-export.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "200" },
    load: { type: "string", default: "200" },
    "prompt-turns": { type: "string", default: "200" },
    "storage-tasks": { type: "string", default: "20" },
    "ledger-tasks": { type: "string", default: "10" },
    "cpu-tasks": { type: "string", default: "20" },
    disk: { type: "boolean", default: false },
    "memory-peer": { type: "boolean", default: true },
    observability: { type: "boolean", default: false },
    export: { type: "boolean", default: false },
    deployed: { type: "boolean", default: false },
    json: { type: "string" },
  },
  allowNegative: true,
});
const n = Number(values.n);
const loadTasks = Number(values.load);
const promptTurns = Number(values["prompt-turns"]);
const storageTasks = Number(values["storage-tasks"]);
const ledgerTasks = Number(values["ledger-tasks"]);
const cpuTasks = Number(values["cpu-tasks"]);
// Miniflare's local observability collector (a tail consumer of every invocation, Durable Object
// calls included) shares workerd's one thread and does not exist in production: off for every
// server alike unless `--observability`.
if (!values.observability) process.env.X_LOCAL_OBSERVABILITY = "false";
const deployed = values.deployed;
const root = join(import.meta.dirname, "..");

const p = (xs: number[]): Percentiles => ({
  p50: percentile(xs, 50),
  p95: percentile(xs, 95),
  p99: percentile(xs, 99),
});
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** `total` blocking sends from `clients` concurrent clients: tasks/s, p99, lost or stuck. */
async function load(target: Target, clients: number, total: number): Promise<LoadRun> {
  const latencies: number[] = [];
  let lost = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const ok = await Promise.race([
          send(target).catch(() => false),
          new Promise<boolean>((r) => setTimeout(() => r(false), 30_000)),
        ]);
        latencies.push(performance.now() - t0);
        if (!ok) lost++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    target: target.name,
    clients,
    tasks: total,
    perSecond: total / seconds,
    p99: percentile(latencies, 99),
    lost,
  };
}

/** What each server measured in the alternating rounds. */
interface Samples {
  card: number[];
  send: number[];
  first: number[];
  chunk: number[];
}

const servers = benchServers({ disk: values.disk });
const fake = await startFakeModel({ port: 0 });
let collector: FakeCollector | null = null;
try {
  const reference = await servers.reference(fake.url);
  const oursVars = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" };
  const ours: CpuTarget = await servers.serve("ours", { vars: oursVars, deployed });
  // `--export`: ours again, exporting every task's spans to a receiver on 127.0.0.1.
  const receiver = values.export ? await exportReceiver() : null;
  collector = receiver?.collector ?? null;
  const oursExport: CpuTarget | null = receiver
    ? counted(await servers.serve(EXPORT_ON, { vars: { ...oursVars, ...receiver.vars }, deployed }))
    : null;
  const sdkWorker = (name: string, store: "d1" | "memory") =>
    servers.serve(name, {
      script: join(root, "bench", "sdk-worker", "dev.ts"),
      vars: { ANTHROPIC_BASE_URL: fake.url, TASK_STORE: store },
    });
  const sdk: CpuTarget = await sdkWorker("SDK Worker (D1)", "d1");
  const sdkMemory = values["memory-peer"] ? await sdkWorker("SDK Worker (memory)", "memory") : null;
  const targets: Target[] = [ours, oursExport, sdk, sdkMemory, reference].filter(
    (t): t is Target => t !== null,
  );

  const model = async () => {
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "bench-key",
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "m",
        max_tokens: 64,
        stream: true,
        messages: [{ role: "user", content: "[[reply:ok]]" }],
      }),
    });
    await response.text();
  };
  for (let i = 0; i < 20; i++)
    await Promise.all([...targets.flatMap((t) => [send(t), card(t)]), model()]);

  const samples = new Map<Target, Samples>(
    targets.map((t) => [t, { card: [], send: [], first: [], chunk: [] }]),
  );
  const of = (t: Target) => samples.get(t) as Samples;
  const modelFloor: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const t of targets) of(t).card.push(await timed(() => card(t)));
    modelFloor.push(await timed(model));
    for (const t of targets) of(t).send.push(await timed(() => send(t)));
    if (i % 4 === 0)
      for (const t of targets) {
        const { first, chunk } = await streamTimes(t);
        of(t).first.push(first);
        of(t).chunk.push(chunk);
      }
  }
  const loads: LoadRun[] = [];
  for (const clients of [8, 32])
    for (const t of targets) loads.push(await load(t, clients, loadTasks));

  // After the timed rounds: a profiler slows what it samples.
  const cpuResults: CpuResult[] = [];
  if (cpuTasks > 0)
    for (const t of [ours, sdk, ...(oursExport ? [oursExport] : [])])
      cpuResults.push(await profileCpu(t, { ...CPU_DEFAULTS, tasks: cpuTasks, root }));
  // Once every task on it has run: its exports arrive after its answers.
  const exported = collector && oursExport ? await exportCheck(collector, oursExport) : null;

  // Counted on a second server with the meter on (its wrappers would slow the timed one); null
  // for a build without the meter (comparing against an older commit).
  const metered = await servers.serve("metered", {
    vars: { ...oursVars, STORAGE_METER: "true", ADMIN_API_KEY: BENCH_ADMIN_KEY },
    deployed,
  });
  const storage = await storagePerTask(metered.base, BENCH_ADMIN_KEY, storageTasks, () =>
    send(metered),
  ).catch(() => null);
  const ledger = await criticalPath(metered.base, BENCH_ADMIN_KEY, ledgerTasks, {
    send: () => send(metered),
    stream: () => streamTimes(metered),
  })
    .catch((error: unknown) => {
      console.error(`critical-path ledger: ${String(error)}`);
      return null;
    })
    .finally(() => metered.stop());
  const bundle = {
    ours: bundleSize(join(root, "wrangler.toml")),
    sdkWorker: bundleSize(join(root, "bench", "sdk-worker", "wrangler.toml")),
  };
  const prompt = promptTurns > 0 ? promptGrowth(promptTurns) : null;

  const figures: ServerFigures[] = targets.map((t) => ({
    name: t.name,
    card: p(of(t).card),
    send: p(of(t).send),
    firstEvent: p(of(t).first),
    firstChunk: p(of(t).chunk),
    overheadMs: p(of(t).send).p50 - p(of(t).card).p50 - p(modelFloor).p50,
  }));
  const figuresOf = (t: Target) => figures[targets.indexOf(t)] as ServerFigures;
  const report: CompareReport = {
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "cpu", node: process.version },
    n,
    state: servers.onTmpfs ? "tmpfs" : "disk",
    profile: deployed ? "deployed" : "local",
    model: p(modelFloor),
    servers: figures,
    ratios: {
      sdkWorker: ratiosOf(figuresOf(ours), figuresOf(sdk), loads),
      reference: ratiosOf(figuresOf(ours), figuresOf(reference), loads),
    },
    load: loads,
    storage,
    ledger,
    cpu: cpuResults,
    bundle,
    prompt,
    export:
      oursExport && exported
        ? { ratios: ratiosOf(figuresOf(oursExport), figuresOf(ours), loads), check: exported }
        : null,
  };
  printCompare(report, loadTasks);
  if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2));
} finally {
  await servers.stop();
  await collector?.close();
  await fake.close();
}
