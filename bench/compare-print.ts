/**
 * What `npm run bench` (bench/compare.ts) measured, as one report (what `--json` writes), and its
 * printing as markdown tables: latency per server (p50 / p95 / p99) and the overhead, throughput
 * and p99 under load, the ratios ours / each peer, with `--export` ours with export on beside ours
 * with it off and the receiver's check, then storage per task, the critical-path ledger, CPU per
 * task, bundle sizes and prompt growth. Pure but for the printing.
 */
import type { CpuResult } from "./cpu-bench.ts";
import { printCpu } from "./cpu-print.ts";
import { type criticalPath, printCriticalPath, type storagePerTask } from "./metered.ts";
import type { PromptGrowth } from "./prompt-cache.ts";
import type { BundleSize } from "./side-runs.ts";
import { EXPORT_ON, type ExportCheck, printExportCheck } from "./trace-export.ts";

/** p50, p95 and p99 of some samples (ms). */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** One server's latencies from the alternating rounds. */
export interface ServerFigures {
  name: string;
  card: Percentiles;
  send: Percentiles;
  firstEvent: Percentiles;
  firstChunk: Percentiles;
  /** SendMessage p50 - card p50 - model p50. */
  overheadMs: number;
}

/** One load run: `tasks` blocking sends from `clients` concurrent clients. */
export interface LoadRun {
  target: string;
  clients: number;
  tasks: number;
  perSecond: number;
  p99: number;
  lost: number;
}

/** One server's figures over another's. */
export interface Ratios {
  overhead: number;
  send: number;
  firstEvent: number;
  tasksPerSecond32: number;
}

/** Everything one run of `npm run bench` measured. */
export interface CompareReport {
  machine: { cpus: number; cpu: string; node: string };
  n: number;
  state: "tmpfs" | "disk";
  /** Ours's settings: `npm run dev`'s local profile, or `--deployed` (closed, limits on). */
  profile: "local" | "deployed";
  model: Percentiles;
  servers: ServerFigures[];
  ratios: { sdkWorker: Ratios; reference: Ratios };
  load: LoadRun[];
  storage: Awaited<ReturnType<typeof storagePerTask>> | null;
  ledger: Awaited<ReturnType<typeof criticalPath>> | null;
  cpu: CpuResult[];
  bundle: { ours: BundleSize; sdkWorker: BundleSize };
  prompt: PromptGrowth | null;
  /** `--export`: ours with export on over ours with it off, and what the receiver got. */
  export: { ratios: Ratios; check: ExportCheck } | null;
}

const f = (x: number) => x.toFixed(2);

/** The 32-client throughput of the server named `name`. */
const perSecond32 = (load: LoadRun[], name: string) =>
  load.find((l) => l.target === name && l.clients === 32)?.perSecond ?? Number.NaN;

/** `a`'s figures over `b`'s. */
export function ratiosOf(a: ServerFigures, b: ServerFigures, load: LoadRun[]): Ratios {
  return {
    overhead: a.overheadMs / b.overheadMs,
    send: a.send.p50 / b.send.p50,
    firstEvent: a.firstEvent.p50 / b.firstEvent.p50,
    tasksPerSecond32: perSecond32(load, a.name) / perSecond32(load, b.name),
  };
}

/** Prints the latency, load and ratio tables, then every other figure the report holds. */
export function printCompare(r: CompareReport, loadTasks: number): void {
  const names = r.servers.map((s) => s.name);
  console.log(
    `\nmachine: ${r.machine.cpus} x ${r.machine.cpu}, node ${r.machine.node}, n=${r.n}; ours on ${r.profile === "deployed" ? "the deployed profile (npm run dev -- --deployed: closed, as the bench's user, rate limits and budgets on: bench/deployed-profile.ts)" : "the local profile (npm run dev: open, no budgets)"}\n`,
  );
  console.log(`| measurement (ms, p50 / p95 / p99) | ${names.join(" | ")} |`);
  console.log(`| --- |${" ---: |".repeat(names.length)}`);
  const row = (name: string, pick: (s: ServerFigures) => Percentiles) =>
    console.log(
      `| ${name} | ${r.servers
        .map((s) => {
          const x = pick(s);
          return `${f(x.p50)} / ${f(x.p95)} / ${f(x.p99)}`;
        })
        .join(" | ")} |`,
    );
  row("Agent Card fetch (runtime floor)", (s) => s.card);
  row("direct model call (model floor)", () => r.model);
  row("blocking SendMessage", (s) => s.send);
  row("stream: first event", (s) => s.firstEvent);
  row("stream: first answer chunk", (s) => s.firstChunk);
  console.log(
    `| **overhead** (SendMessage p50 - card p50 - model p50) | ${r.servers.map((s) => f(s.overheadMs)).join(" | ")} |`,
  );
  console.log(`\n| load: tasks/s (p99 ms, lost or stuck) | ${names.join(" | ")} |`);
  console.log(`| --- |${" ---: |".repeat(names.length)}`);
  for (const clients of [8, 32])
    console.log(
      `| ${clients} clients x ${loadTasks} tasks | ${names
        .map((name) => {
          const l = r.load.find((x) => x.target === name && x.clients === clients);
          return l ? `${f(l.perSecond)} (${f(l.p99)}, ${l.lost})` : "";
        })
        .join(" | ")} |`,
    );
  console.log("\n| ratio | ours / SDK Worker (D1) | ours / Node reference |");
  console.log("| --- | ---: | ---: |");
  const ratioRow = (name: string, key: keyof Ratios) =>
    console.log(`| ${name} | ${f(r.ratios.sdkWorker[key])} | ${f(r.ratios.reference[key])} |`);
  ratioRow("**overhead** (p50)", "overhead");
  ratioRow("blocking SendMessage p50", "send");
  ratioRow("stream: first event p50", "firstEvent");
  ratioRow("32 clients: tasks/s", "tasksPerSecond32");
  if (r.export) printExport(r, r.export);
  if (r.storage)
    console.log(
      `\nstorage per blocking task (ours, STORAGE_METER, ${r.storage.tasks} tasks, on a second server): D1 ${f(r.storage.d1.statements)} statements (${f(r.storage.d1.reads)} reads, ${f(r.storage.d1.writes)} writes); R2 ${f(r.storage.r2ClassA)} class A (${Object.entries(
        r.storage.r2,
      )
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${f(v)}`)
        .join(", ")}), ${f(r.storage.r2ClassB)} class B`,
    );
  if (r.ledger) printCriticalPath(r.ledger);
  if (r.cpu.length > 0)
    printCpu(r.cpu, 25, [
      ["ours", "SDK Worker (D1)"],
      [EXPORT_ON, "ours"],
    ]);
  const kib = (b: BundleSize) =>
    `${(b.raw / 1024).toFixed(0)} KiB raw, ${(b.gzip / 1024).toFixed(0)} KiB gzipped`;
  console.log(
    `\nbundle (wrangler deploy --dry-run): ours ${kib(r.bundle.ours)}; SDK Worker ${kib(r.bundle.sdkWorker)}`,
  );
  console.log(`state: ${r.state === "tmpfs" ? "tmpfs (/dev/shm)" : "disk"}`);
  if (r.prompt) printPrompt(r.prompt);
}

/** Ours with export on beside ours with it off, and the receiver's check. */
function printExport(r: CompareReport, exported: NonNullable<CompareReport["export"]>): void {
  const off = r.servers.find((s) => s.name === "ours");
  const on = r.servers.find((s) => s.name === EXPORT_ON);
  if (!off || !on) return;
  console.log(
    "\n| trace export (OTLP/HTTP protobuf to a receiver on 127.0.0.1) | ours, export off | ours, export on | on / off |",
  );
  console.log("| --- | ---: | ---: | ---: |");
  const exportRow = (name: string, key: keyof Ratios, pick: (s: ServerFigures) => number) =>
    console.log(`| ${name} | ${f(pick(off))} | ${f(pick(on))} | ${f(exported.ratios[key])} |`);
  exportRow("blocking SendMessage p50 (ms)", "send", (s) => s.send.p50);
  exportRow("**overhead** (ms)", "overhead", (s) => s.overheadMs);
  exportRow("stream: first event p50 (ms)", "firstEvent", (s) => s.firstEvent.p50);
  exportRow("32 clients: tasks/s", "tasksPerSecond32", (s) => perSecond32(r.load, s.name));
  printExportCheck(exported.check);
}

function printPrompt(prompt: PromptGrowth): void {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(
    `\nprompt growth over one conversation of ${prompt.turns} turns (bench/prompt-growth.ts):`,
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
