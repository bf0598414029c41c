/**
 * Prints what bench/cpu-bench.ts measured, as markdown tables: CPU ms per task of each server side
 * by side (the Worker's isolate from its profile, the other isolates of its workerd process, the
 * process as a whole), then for each server the Worker isolate's self time by group, its top
 * functions by self time and its own (src/) functions by total time (blocking tasks).
 */
import { type CpuKind, type CpuResult, isolateKind } from "./cpu-bench.ts";

const f = (x: number | null | undefined) =>
  x === null || x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(2);

const KINDS = ["blocking", "streaming"] as const;
const ISOLATES = ["d1:db", "r2:bucket", "core:entry", "observability-collector", "other"].map(
  isolateKind,
);

/** Sampled CPU of every isolate, the Worker's included (JS + program + GC), per task. */
function isolatesTotal(k: CpuKind): number {
  const { js, program, gc } = k.profile;
  return Object.values(k.isolates).reduce((sum, x) => sum + x, js + program + gc);
}

/**
 * Prints the results side by side, the ratios of the pairs of them named in `ratios` (default:
 * the first over the second), then each server's groups and top `top` functions.
 */
export function printCpu(results: CpuResult[], top = 25, ratios?: Array<[string, string]>): void {
  const [first, second] = results;
  if (!first) return;
  console.log(
    `\nCPU per one-turn task (bench/cpu-bench.ts; ${first.tasks} tasks of each kind${first.runs > 1 ? `, mean of ${first.runs} runs` : ""}, one at a time, each followed by a quiet wait; V8 sampling profiles asked for every ${first.intervalUs} µs, ticking every ${f(first.blocking.profile.tickUs)} µs, each sample counted as one tick). Under wrangler dev the Worker and every Durable Object of its script share one isolate, so its profile sees the Worker and (ours) the task, context, workspace and user objects together; D1 and R2 are simulated by other isolates of the same workerd process. Three passes of the same tasks: without profilers (the process's CPU), with the Worker isolate's profile, with the other isolates' profiles (every ${first.isolateIntervalUs} µs); "outside every isolate" is the process minus all isolates' sampled CPU (workerd's own work: Durable Object SQLite commits, object creation, sockets, HTTP; a lower bound: profiling slows what it samples).`,
  );
  console.log(`| ms per task | ${results.map((r) => r.name).join(" | ")} |`);
  console.log(`| --- |${" ---: |".repeat(results.length)}`);
  const rows: Array<[string, (k: CpuKind) => number | null | undefined]> = [
    ["**JavaScript CPU, the Worker's isolate** (idle, program, GC excluded)", (k) => k.profile.js],
    ["its (program): native work with no JavaScript on the stack", (k) => k.profile.program],
    ["its (garbage collector)", (k) => k.profile.gc],
    ...ISOLATES.map((name): [string, (k: CpuKind) => number] => [
      name,
      (k) => k.isolates[name] ?? 0,
    ]),
    ["outside every isolate", (k) => (k.process === null ? null : k.process - isolatesTotal(k))],
    ["**workerd process CPU**, all threads (no profiler)", (k) => k.process],
  ];
  for (const kind of KINDS)
    for (const [label, pick] of rows)
      console.log(`| ${kind}: ${label} | ${results.map((r) => f(pick(r[kind]))).join(" | ")} |`);
  for (const [x, y] of ratios ?? (second ? [[first.name, second.name]] : [])) {
    const a = results.find((r) => r.name === x);
    const b = results.find((r) => r.name === y);
    if (a && b)
      console.log(
        `${a.name} / ${b.name}: JavaScript CPU ${KINDS.map((k) => `${k} ${f(a[k].profile.js / b[k].profile.js)}x`).join(", ")}; workerd process CPU ${KINDS.map((k) => `${k} ${f((a[k].process ?? Number.NaN) / (b[k].process ?? Number.NaN))}x`).join(", ")}`,
      );
  }
  console.log(
    `machine load (1-minute average, start-end): ${results.map((r) => `${r.name} ${r.load.map((x) => x.toFixed(1)).join("-")}`).join("; ")} (CPU time for the same work grows with the machine's load, the sampled and the measured alike: compare runs made in the same conditions, or the ratio)`,
  );
  for (const r of results) {
    const failed = r.blocking.failed + r.streaming.failed;
    if (failed > 0) console.log(`${r.name}: ${failed} tasks did not complete`);
  }
  for (const r of results) printServer(r, top);
}

function printServer(r: CpuResult, top: number): void {
  const { blocking: b, streaming: s } = r;
  console.log(
    `\n${r.name}: the Worker isolate's JavaScript self time by group (ms per task; a native call, such as a SQL statement, is its own row, named with its caller)`,
  );
  console.log("| group | blocking | % | streaming | % |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  const of = (k: CpuKind, g: string) => k.profile.groups.find((x) => x.group === g)?.self ?? 0;
  const pct = (k: CpuKind, g: string) => `${((100 * of(k, g)) / k.profile.js).toFixed(1)}%`;
  const names = [...new Set([...b.profile.groups, ...s.profile.groups].map((g) => g.group))];
  const ours = (k: CpuKind) =>
    k.profile.groups.filter((g) => g.group.startsWith("ours:")).reduce((x, g) => x + g.self, 0);
  for (const g of names.sort((x, y) => of(b, y) - of(b, x)))
    console.log(`| ${g} | ${f(of(b, g))} | ${pct(b, g)} | ${f(of(s, g))} | ${pct(s, g)} |`);
  if (names.some((g) => g.startsWith("ours:")))
    console.log(
      `| (all of ours: src/) | ${f(ours(b))} | ${((100 * ours(b)) / b.profile.js).toFixed(1)}% | ${f(ours(s))} | ${((100 * ours(s)) / s.profile.js).toFixed(1)}% |`,
    );
  console.log(`\n${r.name}: top ${top} functions by self time, blocking (ms per task)`);
  console.log("| self | total | function | where |");
  console.log("| ---: | ---: | --- | --- |");
  for (const fn of b.profile.functions.slice(0, top))
    console.log(`| ${f(fn.self)} | ${f(fn.total)} | ${fn.name} | ${fn.where || fn.group} |`);
  const mine = b.profile.functions.filter((fn) => fn.group.startsWith("ours:"));
  if (mine.length === 0) return;
  console.log(
    `\n${r.name}: top ${top} of its own functions (src/) by total time, blocking (ms per task; total = the samples with the function on the stack, native calls included; an async function's stack ends at its last await)`,
  );
  console.log("| total | self | function | where |");
  console.log("| ---: | ---: | --- | --- |");
  for (const fn of mine.sort((x, y) => y.total - x.total).slice(0, top))
    console.log(`| ${f(fn.total)} | ${f(fn.self)} | ${fn.name} | ${fn.where} |`);
}
