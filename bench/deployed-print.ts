/**
 * Prints what `npm run bench:deployed -- --cpu N --memory C` measured on the deployed profile, as
 * markdown tables: CPU per one-turn task split by invocation (the edge Worker's fetch and each
 * Durable Object's calls, bench/cpu-sides.ts) with the mean per call beside Workers Free's 10 ms
 * per invocation, the top entries of each side, and the isolate's memory idle, under load and
 * after (bench/isolate-memory.ts).
 */
import type { CpuKind, CpuResult } from "./cpu-bench.ts";
import { SIDES, type Side } from "./cpu-sides.ts";
import type { MemoryReport } from "./isolate-memory.ts";

const f = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(digits);

/** The binding whose calls are each side's invocations. */
const BINDING: Partial<Record<Side, string>> = {
  "task object": "TASKS",
  "user object": "USERS",
  "workspace object": "WORKSPACES",
  "conversation object": "CONTEXTS",
  "event hub": "EVENTS",
};

/** Workers Free's CPU time per invocation (ms); Paid's default is 30 s. */
const FREE_CPU_MS = 10;

/** Invocations per task of `side`: the edge's one request, or the calls to its binding. */
function invocations(side: Side, calls: Record<string, number>): number | null {
  if (side === "edge Worker (fetch)") return 1;
  const binding = BINDING[side];
  if (!binding) return null;
  return Object.entries(calls)
    .filter(([name]) => name.startsWith(`${binding}.`))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Calls of `binding` by method, as `create 1, waitSettled 1`. */
function methods(side: Side, calls: Record<string, number>): string {
  const binding = BINDING[side];
  if (!binding) return side === "edge Worker (fetch)" ? "the A2A request" : "";
  return Object.entries(calls)
    .filter(([name]) => name.startsWith(`${binding}.`))
    .map(([name, n]) => `${name.slice(binding.length + 1)} ${n}`)
    .join(", ");
}

function printKind(kind: string, k: CpuKind, calls: Record<string, number>): void {
  if (!k.sides) return;
  console.log(`\n${kind}: the Worker isolate's JavaScript CPU by invocation (ms per task)`);
  console.log(
    `| invocation | ms per task | calls per task | ms per call (mean) | % of Free's ${FREE_CPU_MS} ms |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const side of SIDES) {
    const ms = k.sides.sides[side];
    const n = invocations(side, calls);
    if (ms === 0 && !n) continue;
    const per = n ? ms / n : null;
    const list = methods(side, calls);
    console.log(
      `| ${side}${list ? ` (${list})` : ""} | ${f(ms)} | ${n ?? ""} | ${f(per)} | ${per === null ? "" : `${f((100 * per) / FREE_CPU_MS, 0)}%`} |`,
    );
  }
  console.log(
    `| its (program): native, no JavaScript on the stack | ${f(k.profile.program)} | | | |`,
  );
  console.log(`| its (garbage collector) | ${f(k.profile.gc)} | | | |`);
  const others = Object.values(k.isolates).reduce((sum, x) => sum + x, 0);
  console.log(
    `| miniflare's other isolates (D1, R2 simulators, entry: local only) | ${f(others)} | | | |`,
  );
  console.log(`| **workerd process CPU**, all threads (no profiler) | ${f(k.process)} | | | |`);
}

function printEntries(kind: string, k: CpuKind, top: number): void {
  if (!k.sides) return;
  console.log(`\n${kind}: the frames that decided each side, top ${top} (ms per task)`);
  console.log("| ms | side | deciding frame |");
  console.log("| ---: | --- | --- |");
  for (const e of k.sides.entries.slice(0, top))
    console.log(`| ${f(e.ms, 3)} | ${e.side} | ${e.frame} |`);
}

/**
 * Prints the CPU split of `cpu` with the object calls a blocking and a streaming task made
 * (bench/deployed-counts.ts), then the top `top` deciding frames of each kind.
 */
export function printInvocationCpu(
  cpu: CpuResult,
  calls: { blocking: Record<string, number>; streaming: Record<string, number> },
  top: number,
): void {
  console.log(
    `\nCPU per one-turn task on the deployed profile (${cpu.tasks} tasks of each kind, one at a time, each followed by a quiet wait; bench/cpu-bench.ts). Under wrangler dev the Worker and every object share one isolate: each profile sample goes to the invocation of the bottom-most frame on its stack that only one side runs (bench/cpu-sides.ts); calls per task from the storage meter's ledger.`,
  );
  printKind("blocking", cpu.blocking, calls.blocking);
  printKind("streaming", cpu.streaming, calls.streaming);
  printEntries("blocking", cpu.blocking, top);
  printEntries("streaming", cpu.streaming, top);
  const failed = cpu.blocking.failed + cpu.streaming.failed;
  if (failed > 0) console.log(`${failed} tasks did not complete`);
}

/** Prints the isolate's memory (MB). */
export function printMemory(m: MemoryReport): void {
  console.log(
    `\nThe Worker isolate's memory on the deployed profile (MB; JavaScript heap from Runtime.getHeapUsage, the Worker and every object together under wrangler dev; RSS: the whole workerd process), ${m.clients} concurrent clients sending ${m.tasks} blocking one-turn tasks, ${m.samples} samples every 50 ms${m.failed > 0 ? `; ${m.failed} tasks did not complete` : ""}`,
  );
  console.log("| when | heap used | heap allocated | ArrayBuffers | workerd RSS |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const row = (when: string, r: MemoryReport["idle"]) =>
    console.log(
      `| ${when} | ${f(r.heapUsed, 1)} | ${f(r.heapTotal, 1)} | ${f(r.buffers, 1)} | ${f(r.rss, 1)} |`,
    );
  row("idle (after a warm-up and a full GC)", m.idle);
  row(`under load: mean`, m.mean);
  row(`under load: peak (each column's own)`, m.peak);
  row("after, quiet, before a GC", m.after);
  row("after a full GC", m.afterGc);
}
