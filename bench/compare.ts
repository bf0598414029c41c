/**
 * `npm run bench`: this harness under `wrangler dev` against two peers built on the official
 * @a2a-js/sdk, all on 127.0.0.1 and all calling the same scripted Messages API with zero think
 * time, so only server cost is measured: the **SDK Worker** (bench/sdk-worker/: the SDK's
 * `DefaultRequestHandler` + `JsonRpcTransportHandler` in a Worker under the same `wrangler dev`,
 * tasks in its durable `DatabaseTaskStore` over D1), the same Worker with the SDK's
 * `InMemoryTaskStore` (what `wrangler dev` itself costs; `--no-memory-peer` skips it), and the
 * **Node reference** (bench/reference-server.ts: express, `InMemoryTaskStore`). In alternation
 * (machine drift cancels): an Agent Card fetch (each runtime's floor), a direct model call (the
 * model's floor), a blocking SendMessage; then each server's overhead (SendMessage p50 - card p50
 * - model p50) and the ratios ours / SDK Worker and ours / Node reference; throughput and p99 at 8
 * and 32 concurrent clients with lost or stuck tasks counted; SendStreamingMessage's time to the
 * first event and to the first answer chunk; D1 statements and R2 operations per task and the
 * critical-path ledger of a one-turn task (the harness's STORAGE_METER, bench/metered.ts,
 * `--ledger-tasks` tasks each, blocking and streaming); CPU ms per task from V8 profiles, ours and
 * the SDK Worker's, after the timed rounds (bench/cpu-bench.ts, `--cpu-tasks` tasks of each kind
 * per pass, default 20, 0 skips it); prompt growth and prompt cache read share over one long conversation
 * (bench/prompt-growth.ts, `--prompt-turns`, 0 skips it); both Workers' bundle sizes. `--n`
 * samples (default 200), `--load` tasks per load run (default 200), `--json <file>` writes every
 * figure. Local state (ours and the SDK Worker's D1) goes on tmpfs (/dev/shm) when there is one,
 * as the Node reference keeps its tasks in memory: `--disk` puts it on disk, where every local
 * SQLite commit waits for the disk. Starts what it needs and stops it. Not part of `npm test`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type DevServerOptions, freePort, startDevServer } from "../test/e2e/dev-server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";
import { card, send, streamTimes, type Target } from "./a2a-calls.ts";
import { CPU_DEFAULTS, type CpuResult, type CpuTarget, profileCpu } from "./cpu-bench.ts";
import { printCpu } from "./cpu-print.ts";
import { criticalPath, printCriticalPath, storagePerTask } from "./metered.ts";
import { percentile } from "./percentile.ts";
import type { PromptGrowth } from "./prompt-cache.ts";

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
const onTmpfs = !values.disk && existsSync("/dev/shm");
const stateDirs: string[] = [];
/** A fresh state directory for one server: tmpfs unless `--disk`; removed at the end. */
function stateDir(name: string): string {
  const dir = mkdtempSync(join(onTmpfs ? "/dev/shm" : tmpdir(), `a2a-bench-${name}-`));
  stateDirs.push(dir);
  return dir;
}
const ADMIN_KEY = "bench-admin";
const root = join(import.meta.dirname, "..");

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** `total` blocking sends from `clients` concurrent clients: tasks/s, p99, lost or stuck. */
async function load(target: Target, clients: number, total: number) {
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
    clients,
    tasks: total,
    perSecond: total / seconds,
    p99: percentile(latencies, 99),
    lost,
  };
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error("the reference server exited");
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer`);
}

/** bench/prompt-growth.ts in its own process (its own model and server), read back as JSON. */
function promptGrowth(turns: number) {
  const out = join(mkdtempSync(join(tmpdir(), "a2a-prompt-")), "prompt.json");
  const result = spawnSync(
    process.execPath,
    [join(root, "bench", "prompt-growth.ts"), "--turns", String(turns), "--json", out],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "ignore", "inherit"] },
  );
  if (result.status !== 0) throw new Error("bench/prompt-growth.ts failed");
  return JSON.parse(readFileSync(out, "utf8")) as PromptGrowth;
}

/** The gzipped and raw size of `wrangler deploy --dry-run` of a Worker config. */
function bundleSize(config: string): { raw: number; gzip: number } {
  const out = mkdtempSync(join(tmpdir(), "a2a-bundle-"));
  const result = spawnSync(
    join(root, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "-c", config, "--outdir", out],
    { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (result.status !== 0) throw new Error(`dry-run failed: ${result.stderr}`);
  let raw = 0;
  let gzip = 0;
  for (const file of readdirSync(out)) {
    if (!/\.(js|mjs|wasm)$/.test(file)) continue;
    const bytes = readFileSync(join(out, file));
    raw += statSync(join(out, file)).size;
    gzip += gzipSync(bytes).length;
  }
  rmSync(out, { recursive: true, force: true });
  return { raw, gzip };
}

const f = (x: number) => x.toFixed(2);
const p = (xs: number[]) => ({
  p50: percentile(xs, 50),
  p95: percentile(xs, 95),
  p99: percentile(xs, 99),
});

/** What each server measured in the alternating rounds. */
interface Samples {
  card: number[];
  send: number[];
  first: number[];
  chunk: number[];
}

const stops: Array<() => Promise<void> | void> = [];
const fake = await startFakeModel({ port: 0 });
stops.push(() => fake.close());
try {
  const refPort = await freePort();
  const reference = spawn(
    process.execPath,
    [join(root, "bench", "reference-server.ts"), "--port", String(refPort), "--model", fake.url],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  stops.push(() => {
    reference.kill();
  });
  /** A dev server on a free port with its own state directory and inspector port, stopped at the end. */
  const serve = async (name: string, options: Omit<DevServerOptions, "port" | "persistDir">) => {
    const inspectorPort = await freePort();
    const server = await startDevServer({
      port: await freePort(),
      persistDir: stateDir(name),
      extraArgs: ["--inspector-port", String(inspectorPort)],
      ...options,
    });
    stops.push(() => server.stop());
    return { base: server.url, inspectorPort };
  };
  const ours: CpuTarget = {
    name: "ours",
    ...(await serve("ours", {
      vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" },
    })),
  };
  const sdkWorker = (store: "d1" | "memory") =>
    serve(`sdk-${store}`, {
      script: join(root, "bench", "sdk-worker", "dev.ts"),
      vars: { ANTHROPIC_BASE_URL: fake.url, TASK_STORE: store },
    });
  const sdk: CpuTarget = { name: "SDK Worker (D1)", ...(await sdkWorker("d1")) };
  const sdkMemory: Target | null = values["memory-peer"]
    ? { name: "SDK Worker (memory)", ...(await sdkWorker("memory")) }
    : null;
  await waitFor(`http://127.0.0.1:${refPort}/health`, reference);
  const ref: Target = { name: "Node reference", base: `http://127.0.0.1:${refPort}` };
  const targets = [ours, sdk, ...(sdkMemory ? [sdkMemory] : []), ref];

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
  const overhead = (t: Target) => p(of(t).send).p50 - p(of(t).card).p50 - p(modelFloor).p50;
  const loads: Array<{ target: string } & Awaited<ReturnType<typeof load>>> = [];
  for (const clients of [8, 32])
    for (const t of targets) loads.push({ target: t.name, ...(await load(t, clients, loadTasks)) });
  const perSecond = (t: Target, clients: number) =>
    loads.find((l) => l.target === t.name && l.clients === clients)?.perSecond ?? Number.NaN;

  // After the timed rounds: a profiler slows what it samples.
  const cpuResults: CpuResult[] = [];
  if (cpuTasks > 0)
    for (const t of [ours, sdk])
      cpuResults.push(await profileCpu(t, { ...CPU_DEFAULTS, tasks: cpuTasks, root }));

  // Counted on a second server with the meter on (its wrappers would slow the timed one); null
  // for a build without the meter (comparing against an older commit).
  const metered = await startDevServer({
    port: await freePort(),
    persistDir: stateDir("meter"),
    vars: {
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "bench-key",
      STORAGE_METER: "true",
      ADMIN_API_KEY: ADMIN_KEY,
    },
  });
  const meteredTarget: Target = { name: "metered", base: metered.url };
  const storage = await storagePerTask(metered.url, ADMIN_KEY, storageTasks, () =>
    send(meteredTarget),
  ).catch(() => null);
  const ledger = await criticalPath(metered.url, ADMIN_KEY, ledgerTasks, {
    send: () => send(meteredTarget),
    stream: () => streamTimes(meteredTarget),
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

  const cpu = cpus()[0]?.model ?? "cpu";
  console.log(`\nmachine: ${cpus().length} x ${cpu}, node ${process.version}, n=${n}\n`);
  console.log(`| measurement (ms, p50 / p95 / p99) | ${targets.map((t) => t.name).join(" | ")} |`);
  console.log(`| --- |${" ---: |".repeat(targets.length)}`);
  const row = (name: string, pick: (t: Target) => number[]) =>
    console.log(
      `| ${name} | ${targets
        .map((t) => {
          const x = p(pick(t));
          return `${f(x.p50)} / ${f(x.p95)} / ${f(x.p99)}`;
        })
        .join(" | ")} |`,
    );
  row("Agent Card fetch (runtime floor)", (t) => of(t).card);
  row("direct model call (model floor)", () => modelFloor);
  row("blocking SendMessage", (t) => of(t).send);
  row("stream: first event", (t) => of(t).first);
  row("stream: first answer chunk", (t) => of(t).chunk);
  console.log(
    `| **overhead** (SendMessage p50 - card p50 - model p50) | ${targets.map((t) => f(overhead(t))).join(" | ")} |`,
  );
  console.log(
    `\n| load: tasks/s (p99 ms, lost or stuck) | ${targets.map((t) => t.name).join(" | ")} |`,
  );
  console.log(`| --- |${" ---: |".repeat(targets.length)}`);
  for (const clients of [8, 32])
    console.log(
      `| ${clients} clients x ${loadTasks} tasks | ${targets
        .map((t) => {
          const l = loads.find((x) => x.target === t.name && x.clients === clients);
          return l ? `${f(l.perSecond)} (${f(l.p99)}, ${l.lost})` : "";
        })
        .join(" | ")} |`,
    );
  const ratios = (peer: Target) => ({
    overhead: overhead(ours) / overhead(peer),
    send: p(of(ours).send).p50 / p(of(peer).send).p50,
    firstEvent: p(of(ours).first).p50 / p(of(peer).first).p50,
    tasksPerSecond32: perSecond(ours, 32) / perSecond(peer, 32),
  });
  const ratioOf = { sdkWorker: ratios(sdk), reference: ratios(ref) };
  console.log("\n| ratio | ours / SDK Worker (D1) | ours / Node reference |");
  console.log("| --- | ---: | ---: |");
  const ratioRow = (name: string, key: keyof ReturnType<typeof ratios>) =>
    console.log(`| ${name} | ${f(ratioOf.sdkWorker[key])} | ${f(ratioOf.reference[key])} |`);
  ratioRow("**overhead** (p50)", "overhead");
  ratioRow("blocking SendMessage p50", "send");
  ratioRow("stream: first event p50", "firstEvent");
  ratioRow("32 clients: tasks/s", "tasksPerSecond32");
  if (storage)
    console.log(
      `\nstorage per blocking task (ours, STORAGE_METER, ${storage.tasks} tasks, on a second server): D1 ${f(storage.d1.statements)} statements (${f(storage.d1.reads)} reads, ${f(storage.d1.writes)} writes); R2 ${f(storage.r2ClassA)} class A (${Object.entries(
        storage.r2,
      )
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${f(v)}`)
        .join(", ")}), ${f(storage.r2ClassB)} class B`,
    );
  if (ledger) printCriticalPath(ledger);
  if (cpuResults.length > 0) printCpu(cpuResults);
  const kib = (b: { raw: number; gzip: number }) =>
    `${(b.raw / 1024).toFixed(0)} KiB raw, ${(b.gzip / 1024).toFixed(0)} KiB gzipped`;
  console.log(
    `\nbundle (wrangler deploy --dry-run): ours ${kib(bundle.ours)}; SDK Worker ${kib(bundle.sdkWorker)}`,
  );
  console.log(`state: ${onTmpfs ? "tmpfs (/dev/shm)" : "disk"}`);
  if (prompt) {
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    console.log(
      `\nprompt growth over one conversation of ${promptTurns} turns (bench/prompt-growth.ts):`,
    );
    console.log(
      "| turn | request tokens | system prompt tokens | messages | compactions so far | cache read share |",
    );
    console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const t of [1, 20, 50, 100, 200]) {
      const x = prompt.samples[t - 1];
      if (x)
        console.log(
          `| ${t} | ${x.requestTokens} | ${x.systemTokens} | ${x.messages} | ${x.compactions} | ${pct(x.cacheShare)} |`,
        );
    }
    console.log(
      `cache read share: mean per turn ${pct(prompt.meanCacheShare)}, of all request tokens ${pct(prompt.cacheShareOfTokens)}`,
    );
  }
  if (values.json)
    writeFileSync(
      values.json,
      JSON.stringify(
        {
          machine: { cpus: cpus().length, cpu, node: process.version },
          n,
          state: onTmpfs ? "tmpfs" : "disk",
          model: p(modelFloor),
          servers: targets.map((t) => ({
            name: t.name,
            card: p(of(t).card),
            send: p(of(t).send),
            firstEvent: p(of(t).first),
            firstChunk: p(of(t).chunk),
            overheadMs: overhead(t),
          })),
          ratios: ratioOf,
          load: loads,
          storage,
          ledger,
          cpu: cpuResults,
          bundle,
          prompt,
        },
        null,
        2,
      ),
    );
} finally {
  for (const stop of stops.reverse()) await stop();
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
}
