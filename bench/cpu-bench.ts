/**
 * CPU per task from a profile, for `npm run bench:cpu` (bench/cpu-profile.ts) and `npm run bench
 * -- --cpu-tasks N` (bench/compare.ts): on a server under `wrangler dev` started with
 * `--inspector-port`, warms up, then for blocking and then streaming one-turn tasks runs `tasks`
 * of them one at a time, each followed by a quiet wait (the workerd process's CPU clock stands
 * still: the task's background work, alarms and waitUntil included, is done), in three passes:
 * without a profiler, reading the CPU time of the workerd process that runs the Worker (all its
 * threads); under a V8 sampling profile (`Profiler.start` / `Profiler.stop`) of the Worker's
 * isolate (through wrangler's inspector proxy); under profiles of every other isolate of that
 * process (miniflare's entry, the D1 and R2 simulators, its observability collector..., through
 * workerd's own inspector; every profiler's sampling signals slow the process's one thread, so
 * each pass profiles one side, the others at a coarser interval). Printed by bench/cpu-print.ts.
 * With `sides`, the Worker isolate's profile is also split by the invocation each sample ran in
 * (edge Worker or which Durable Object: bench/cpu-sides.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { send, streamTimes, type Target } from "./a2a-calls.ts";
import {
  type CpuProfile,
  type CpuSummary,
  meanSummary,
  summarize,
  tickUs,
} from "./cpu-analysis.ts";
import { type SideSplit, splitBySide } from "./cpu-sides.ts";
import {
  connectInspector,
  type Inspector,
  inspectorTargets,
  loadedScripts,
  processCpuMs,
  workerdInspectorPort,
  workerdPid,
} from "./devtools.ts";

/** A server to profile: an A2A target whose `wrangler dev` has this inspector port. */
export interface CpuTarget extends Target {
  inspectorPort: number;
}

/** One kind of task on one server, per task (ms). */
export interface CpuKind {
  /** The Worker's isolate (with, under wrangler dev, all its Durable Objects). */
  profile: CpuSummary;
  /** The other isolates of its workerd process: all their sampled CPU, by what they are. */
  isolates: Record<string, number>;
  /** CPU of the workerd process running the Worker, all threads, without a profiler. */
  process: number | null;
  /** Tasks that did not come back completed (of all passes). */
  failed: number;
  /** The Worker isolate's JavaScript CPU by invocation (with the `sides` option). */
  sides?: SideSplit;
}

/** What {@link profileCpu} measured on one server. */
export interface CpuResult {
  name: string;
  /** Measurements averaged (each `tasks` tasks of each kind per pass). */
  runs: number;
  tasks: number;
  intervalUs: number;
  isolateIntervalUs: number;
  /** The machine's 1-minute load average when the measurement started and ended. */
  load: [number, number];
  blocking: CpuKind;
  streaming: CpuKind;
}

/** Options of {@link profileCpu}. */
export interface CpuOptions {
  /** Tasks of each kind in each pass. */
  tasks: number;
  /** Warm-up tasks of each kind before the passes. */
  warmup: number;
  /** The sampling interval (µs) of the Worker isolate's profile. */
  intervalUs: number;
  /** The sampling interval (µs) of the other isolates' profiles. */
  isolateIntervalUs: number;
  /** The repository root: profile locations are shown from it. */
  root: string;
  /** Writes each raw profile here (made if missing) as `<server>-<kind>[-<isolate>].cpuprofile`
   * (opens in Chrome DevTools). */
  saveDir?: string;
  /** Splits the Worker isolate's profile by invocation (bench/cpu-sides.ts). */
  sides?: boolean;
}

/** The options both benches default to (bench/cpu-profile.ts's flags change them). */
export const CPU_DEFAULTS = { warmup: 20, intervalUs: 100, isolateIntervalUs: 1000 } as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an isolate of miniflare's is, from workerd's name for it. */
export function isolateKind(id: string): string {
  if (id.startsWith("d1:")) return "D1 simulator";
  if (id.startsWith("r2:")) return "R2 simulator";
  if (id === "core:entry") return "miniflare's entry (routes every request)";
  if (id.includes("observability-collector"))
    return "miniflare's observability collector (traces every invocation)";
  return "other miniflare isolates (outbound fetch, cache, ...)";
}

/** The CPU (ms per ms) the workerd process uses while nothing happens, over 300 ms. */
async function idleRate(pid: number | null): Promise<number> {
  if (pid === null) return 0;
  const before = processCpuMs(pid);
  await sleep(300);
  return (processCpuMs(pid) - before) / 300;
}

/**
 * Waits until the workerd process's CPU over the last 60 ms (polled every 20 ms) is within 0.3 ms
 * of what it uses idle (`rate`: running profilers' sampling signals cost some), at most 10 s.
 * Without /proc, a fixed 250 ms.
 */
export async function quiet(pid: number | null, rate: number): Promise<void> {
  if (pid === null) {
    await sleep(250);
    return;
  }
  const window: number[] = [processCpuMs(pid)];
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    await sleep(20);
    window.push(processCpuMs(pid));
    if (window.length > 4) window.shift();
    const [first, , , last] = window;
    if (last !== undefined && first !== undefined && last - first < 0.3 + rate * 60) return;
  }
}

/**
 * Sessions with the process's other isolates through workerd's own inspector: all but the
 * `core:user:` Workers (the one under test is wrangler's proxy's session) except miniflare's.
 */
async function otherIsolates(pid: number | null): Promise<Array<[string, Inspector]>> {
  const port = pid === null ? null : await workerdInspectorPort(pid);
  if (port === null) return [];
  const targets = (await inspectorTargets(port)).filter(
    (t) => !t.id.startsWith("core:user:") || t.id.includes("miniflare"),
  );
  return Promise.all(
    targets.map(
      async (t): Promise<[string, Inspector]> => [
        t.id,
        await connectInspector(t.webSocketDebuggerUrl),
      ],
    ),
  );
}

/** Profiles blocking, then streaming one-turn tasks on `target` (see the file's header). */
export async function profileCpu(target: CpuTarget, options: CpuOptions): Promise<CpuResult> {
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const pid = workerdPid(target.inspectorPort);
  const [proxied] = await inspectorTargets(target.inspectorPort);
  if (!proxied) throw new Error(`${target.name}: no inspector on port ${target.inspectorPort}`);
  const worker = await connectInspector(proxied.webSocketDebuggerUrl);
  const others = await otherIsolates(pid);
  const all: Array<[string, Inspector]> = [["worker", worker], ...others];
  const save = (name: string, profile: CpuProfile) => {
    if (!options.saveDir) return;
    mkdirSync(options.saveDir, { recursive: true });
    const file = `${target.name.replace(/\W+/g, "-").toLowerCase()}-${name.replace(/\W+/g, "-")}`;
    writeFileSync(join(options.saveDir, `${file}.cpuprofile`), JSON.stringify(profile));
  };
  try {
    // Before the warm-up: enabling the debugger may deoptimise what already ran.
    const scripts = await loadedScripts(worker);
    const kinds = {
      blocking: () => send(target),
      streaming: async () => !Number.isNaN((await streamTimes(target)).chunk),
    };
    for (let i = 0; i < options.warmup; i++) for (const run of Object.values(kinds)) await run();
    for (const [id, session] of all) {
      await session.call("Profiler.enable");
      await session.call("Profiler.setSamplingInterval", {
        interval: id === "worker" ? options.intervalUs : options.isolateIntervalUs,
      });
    }
    const measured: Partial<Record<keyof typeof kinds, CpuKind>> = {};
    for (const [kind, run] of Object.entries(kinds) as Array<
      [keyof typeof kinds, () => Promise<boolean>]
    >) {
      let failed = 0;
      /** Runs the tasks under `sessions`' profiles (none: no profiler), returns their profiles. */
      const pass = async (sessions: Array<[string, Inspector]>) => {
        await quiet(pid, 0);
        for (const [, session] of sessions) await session.call("Profiler.start");
        const rate = sessions.length > 0 ? await idleRate(pid) : 0;
        for (let i = 0; i < options.tasks; i++) {
          if (!(await run().catch(() => false))) failed++;
          await quiet(pid, rate);
        }
        const profiles: Array<[string, CpuProfile]> = [];
        for (const [id, session] of sessions) {
          const { profile } = await session.call<{ profile: CpuProfile }>("Profiler.stop");
          save(id === "worker" ? kind : `${kind}-${id}`, profile);
          profiles.push([id, profile]);
        }
        return profiles;
      };
      const before = pid === null ? 0 : processCpuMs(pid);
      await pass([]);
      const process = pid === null ? null : (processCpuMs(pid) - before) / options.tasks;
      const [[, raw]] = (await pass([["worker", worker]])) as [[string, CpuProfile]];
      const profile = summarize(raw, scripts, options.tasks, options.root);
      const sides = options.sides
        ? splitBySide(raw, scripts, options.tasks, options.root, profile.tickUs)
        : undefined;
      const rest = await pass(others);
      // Sparse profiles do not show the tick: take it from all of them together.
      const tick = tickUs(rest.flatMap(([, p]) => p.timeDeltas));
      const isolates: Record<string, number> = {};
      for (const [id, p] of rest) {
        const s = summarize(p, new Map(), options.tasks, options.root, tick);
        const name = isolateKind(id);
        isolates[name] = (isolates[name] ?? 0) + s.js + s.program + s.gc;
      }
      measured[kind] = { profile, isolates, process, failed, sides };
    }
    for (const [, session] of all) await session.call("Profiler.disable");
    const { blocking, streaming } = measured as Record<keyof typeof kinds, CpuKind>;
    return {
      name: target.name,
      runs: 1,
      tasks: options.tasks,
      intervalUs: options.intervalUs,
      isolateIntervalUs: options.isolateIntervalUs,
      load: [loadBefore, loadavg()[0] ?? Number.NaN],
      blocking,
      streaming,
    };
  } finally {
    for (const [, session] of all) session.close();
  }
}

/** The mean of repeated measurements of one server. */
export function meanResult(results: CpuResult[]): CpuResult {
  const [first] = results;
  if (!first) throw new Error("no results");
  const n = results.length;
  const kind = (k: "blocking" | "streaming"): CpuKind => {
    const isolates: Record<string, number> = {};
    for (const r of results)
      for (const [name, ms] of Object.entries(r[k].isolates))
        isolates[name] = (isolates[name] ?? 0) + ms / n;
    const processes = results.map((r) => r[k].process);
    return {
      profile: meanSummary(results.map((r) => r[k].profile)),
      isolates,
      process: processes.includes(null)
        ? null
        : (processes as number[]).reduce((sum, x) => sum + x, 0) / n,
      failed: results.reduce((sum, r) => sum + r[k].failed, 0),
    };
  };
  return {
    ...first,
    runs: results.reduce((sum, r) => sum + r.runs, 0),
    load: [first.load[0], results[n - 1]?.load[1] ?? Number.NaN],
    blocking: kind("blocking"),
    streaming: kind("streaming"),
  };
}
