/**
 * `npm run bench`: this harness under `wrangler dev` against the reference A2A server
 * (bench/reference-server.ts: @a2a-js/sdk, express, InMemoryTaskStore), both on 127.0.0.1 and
 * both calling the same scripted Messages API with zero think time, so only server cost is
 * measured. In alternation (machine drift cancels): an Agent Card fetch (each runtime's floor), a
 * direct model call (the model's floor), a blocking SendMessage; then the harness overhead
 * (SendMessage p50 - card p50 - model p50) and the ratio ours / reference; throughput and p99 at
 * 8 and 32 concurrent clients with lost or stuck tasks counted; SendStreamingMessage's time to the
 * first event and to the first answer chunk; D1 statements and R2 operations per task (the
 * harness's STORAGE_METER); prompt growth and prompt cache read share over one long conversation
 * (bench/prompt-growth.ts, `--prompt-turns`, 0 skips it); the Worker bundle size. `--n` samples
 * (default 200), `--load` tasks per load run (default 200), `--json <file>` writes every figure.
 * The harness keeps its local state on tmpfs (/dev/shm) when there is one, as the reference keeps
 * its tasks in memory: `--disk` puts it on disk, where every local SQLite commit waits for the
 * disk. Starts what it needs and stops it. Not part of `npm test`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { freePort, startDevServer } from "../test/e2e/dev-server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";
import type { PromptGrowth } from "./prompt-cache.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "200" },
    load: { type: "string", default: "200" },
    "prompt-turns": { type: "string", default: "200" },
    "storage-tasks": { type: "string", default: "20" },
    disk: { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const n = Number(values.n);
const loadTasks = Number(values.load);
const promptTurns = Number(values["prompt-turns"]);
const storageTasks = Number(values["storage-tasks"]);
const stateDir =
  !values.disk && existsSync("/dev/shm") ? mkdtempSync("/dev/shm/a2a-bench-") : undefined;
const ADMIN_KEY = "bench-admin";
const root = join(import.meta.dirname, "..");

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ??
  Number.NaN;
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** One A2A server under test: its card URL and its JSON-RPC endpoint. */
interface Target {
  name: string;
  base: string;
}

const rpcBody = (method: string, text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } },
  });

async function send(target: Target): Promise<boolean> {
  const response = await fetch(`${target.base}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: rpcBody("SendMessage", "[[reply:ok]]"),
  });
  const body = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
  return body.result?.task?.status?.state === "TASK_STATE_COMPLETED";
}

async function card(target: Target): Promise<void> {
  await (await fetch(`${target.base}/.well-known/agent-card.json`)).arrayBuffer();
}

/** Time to the first SSE event and to the first answer chunk of a streaming send. */
async function streamTimes(target: Target): Promise<{ first: number; chunk: number }> {
  const start = performance.now();
  const response = await fetch(`${target.base}/`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "A2A-Version": "1.0",
      Accept: "text/event-stream",
    },
    body: rpcBody("SendStreamingMessage", "[[reply:a streamed answer]]"),
  });
  if (!response.body) throw new Error("no stream");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let first = Number.NaN;
  let chunk = Number.NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    if (Number.isNaN(first) && buffer.includes("data:")) first = performance.now() - start;
    if (Number.isNaN(chunk) && buffer.includes('"artifactUpdate"'))
      chunk = performance.now() - start;
  }
  return { first, chunk };
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

interface StorageCounts {
  d1: { statements: number; reads: number; writes: number };
  r2: Record<string, number>;
  r2ClassA: number;
  r2ClassB: number;
}

async function meter(base: string, method: "GET" | "DELETE"): Promise<StorageCounts> {
  const response = await fetch(`${base}/api/admin/storage-meter`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_KEY}` },
  });
  if (!response.ok) throw new Error(`storage meter: HTTP ${response.status}`);
  return (await response.json()) as StorageCounts;
}

/** D1 statements and R2 operations per blocking task, once the tasks' background work is done. */
async function storagePerTask(target: Target, tasks: number) {
  await new Promise((r) => setTimeout(r, 1_000));
  await meter(target.base, "DELETE");
  for (let i = 0; i < tasks; i++) await send(target);
  let last = await meter(target.base, "GET");
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await meter(target.base, "GET");
    const same = JSON.stringify(now) === JSON.stringify(last);
    last = now;
    if (same) break;
  }
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

function bundleSize(): { raw: number; gzip: number } {
  const out = mkdtempSync(join(tmpdir(), "a2a-bundle-"));
  const result = spawnSync(
    join(root, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "--outdir", out],
    { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (result.status !== 0) throw new Error(`dry-run failed: ${result.stderr}`);
  let raw = 0;
  let gzip = 0;
  for (const file of readdirSync(out)) {
    if (!/\.(js|mjs|wasm|map)$/.test(file) || file.endsWith(".map")) continue;
    const bytes = readFileSync(join(out, file));
    raw += statSync(join(out, file)).size;
    gzip += gzipSync(bytes).length;
  }
  return { raw, gzip };
}

const fake = await startFakeModel({ port: 0 });
const refPort = await freePort();
const reference = spawn(
  process.execPath,
  [join(root, "bench", "reference-server.ts"), "--port", String(refPort), "--model", fake.url],
  { stdio: ["ignore", "ignore", "inherit"] },
);
const server = await startDevServer({
  port: await freePort(),
  ...(stateDir ? { persistDir: stateDir } : {}),
  vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" },
});
try {
  await waitFor(`http://127.0.0.1:${refPort}/health`, reference);
  const ours: Target = { name: "ours", base: server.url };
  const ref: Target = { name: "reference", base: `http://127.0.0.1:${refPort}` };
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
    await Promise.all([send(ours), send(ref), card(ours), card(ref), model()]);

  const s = {
    cardOurs: [] as number[],
    cardRef: [] as number[],
    model: [] as number[],
    sendOurs: [] as number[],
    sendRef: [] as number[],
    firstOurs: [] as number[],
    firstRef: [] as number[],
    chunkOurs: [] as number[],
    chunkRef: [] as number[],
  };
  for (let i = 0; i < n; i++) {
    s.cardOurs.push(await timed(() => card(ours)));
    s.cardRef.push(await timed(() => card(ref)));
    s.model.push(await timed(model));
    s.sendOurs.push(await timed(() => send(ours)));
    s.sendRef.push(await timed(() => send(ref)));
    if (i % 4 === 0) {
      const a = await streamTimes(ours);
      const b = await streamTimes(ref);
      s.firstOurs.push(a.first);
      s.chunkOurs.push(a.chunk);
      s.firstRef.push(b.first);
      s.chunkRef.push(b.chunk);
    }
  }
  const p = (xs: number[]) => ({
    p50: percentile(xs, 50),
    p95: percentile(xs, 95),
    p99: percentile(xs, 99),
  });
  const overheadOurs = p(s.sendOurs).p50 - p(s.cardOurs).p50 - p(s.model).p50;
  const overheadRef = p(s.sendRef).p50 - p(s.cardRef).p50 - p(s.model).p50;
  const loads = [];
  for (const clients of [8, 32])
    loads.push({
      clients,
      ours: await load(ours, clients, loadTasks),
      reference: await load(ref, clients, loadTasks),
    });
  const streaming = {
    firstEvent: { ours: p(s.firstOurs).p50, reference: p(s.firstRef).p50 },
    firstChunk: { ours: p(s.chunkOurs).p50, reference: p(s.chunkRef).p50 },
  };
  // Counted on a second server with the meter on (its wrappers would slow the timed one); null
  // for a build without the meter (comparing against an older commit).
  const metered = await startDevServer({
    port: await freePort(),
    ...(stateDir ? { persistDir: mkdtempSync("/dev/shm/a2a-bench-meter-") } : {}),
    vars: {
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "bench-key",
      STORAGE_METER: "true",
      ADMIN_API_KEY: ADMIN_KEY,
    },
  });
  const storage = await storagePerTask({ name: "metered", base: metered.url }, storageTasks)
    .catch(() => null)
    .finally(() => metered.stop());
  const bundle = bundleSize();
  const prompt = promptTurns > 0 ? promptGrowth(promptTurns) : null;

  const f = (x: number) => x.toFixed(2);
  const cpu = cpus()[0]?.model ?? "cpu";
  console.log(`\nmachine: ${cpus().length} x ${cpu}, node ${process.version}, n=${n}\n`);
  console.log(
    "| measurement (ms) | ours p50 | ours p95 | ours p99 | reference p50 | reference p95 | reference p99 |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  const row = (name: string, a: number[], b: number[]) => {
    const x = p(a);
    const y = p(b);
    console.log(
      `| ${name} | ${f(x.p50)} | ${f(x.p95)} | ${f(x.p99)} | ${f(y.p50)} | ${f(y.p95)} | ${f(y.p99)} |`,
    );
  };
  row("Agent Card fetch (runtime floor)", s.cardOurs, s.cardRef);
  row("direct model call (model floor)", s.model, s.model);
  row("blocking SendMessage", s.sendOurs, s.sendRef);
  row("stream: first event", s.firstOurs, s.firstRef);
  row("stream: first answer chunk", s.chunkOurs, s.chunkRef);
  console.log(
    `\nharness overhead (SendMessage p50 - card p50 - model p50): ours ${f(overheadOurs)} ms, reference ${f(overheadRef)} ms, ratio ours/reference ${f(overheadOurs / overheadRef)}`,
  );
  console.log(
    `\n| load | ours tasks/s | ours p99 ms | ours lost | reference tasks/s | reference p99 ms | reference lost |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const l of loads)
    console.log(
      `| ${l.clients} clients x ${loadTasks} tasks | ${f(l.ours.perSecond)} | ${f(l.ours.p99)} | ${l.ours.lost} | ${f(l.reference.perSecond)} | ${f(l.reference.p99)} | ${l.reference.lost} |`,
    );
  if (storage)
    console.log(
      `\nstorage per blocking task (STORAGE_METER, ${storage.tasks} tasks, on a second server): D1 ${f(storage.d1.statements)} statements (${f(storage.d1.reads)} reads, ${f(storage.d1.writes)} writes); R2 ${f(storage.r2ClassA)} class A (${Object.entries(
        storage.r2,
      )
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${f(v)}`)
        .join(", ")}), ${f(storage.r2ClassB)} class B`,
    );
  console.log(
    `\nbundle (wrangler deploy --dry-run): ${(bundle.raw / 1024).toFixed(0)} KiB raw, ${(bundle.gzip / 1024).toFixed(0)} KiB gzipped`,
  );
  console.log(`state: ${stateDir ? `tmpfs (${stateDir})` : "disk"}`);
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
          latency: {
            card: { ours: p(s.cardOurs), reference: p(s.cardRef) },
            model: p(s.model),
            send: { ours: p(s.sendOurs), reference: p(s.sendRef) },
          },
          overheadMs: {
            ours: overheadOurs,
            reference: overheadRef,
            ratio: overheadOurs / overheadRef,
          },
          streaming,
          load: loads,
          storage,
          bundle,
          prompt,
        },
        null,
        2,
      ),
    );
} finally {
  reference.kill();
  await server.stop();
  await fake.close();
}
