/**
 * Reads a V8 CPU profile (the `Profiler.stop` result of `wrangler dev`'s inspector) as the CPU
 * bench reports it: sampled time split into the isolate's JavaScript work (every sample but
 * `(idle)`, `(program)` and `(garbage collector)`), `(program)` (workerd and V8 native work with
 * no JavaScript on the stack) and GC; self and total time per function; self time per group
 * (our src/ areas, each npm package, workerd's built-in modules, wrangler's local-only glue).
 * Bundled positions are mapped to the original files through the scripts' source maps
 * (bench/devtools.ts). A native call made from JavaScript (a SQLite statement, `JSON.parse`, a
 * binding's method) is not a frame of its own: its time is the calling function's self time.
 * Pure: no I/O.
 */
import { relative, resolve } from "node:path";
import type { LoadedScript } from "./devtools.ts";

/** The parts of a `Profiler.Profile` read here. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: {
      functionName: string;
      scriptId: string;
      url: string;
      lineNumber: number;
      columnNumber: number;
    };
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One function or group: ms per task. */
export interface CpuRow {
  name: string;
  /** Original file:line (or the script URL when it has no map). */
  where: string;
  group: string;
  self: number;
  total: number;
}

/** A profile of `tasks` tasks, per task (ms). */
export interface CpuSummary {
  tasks: number;
  /** JavaScript work: every sample but idle, program and GC. */
  js: number;
  program: number;
  gc: number;
  /** The profile's wall time per task (ms), idle included. */
  wall: number;
  /** The sampler's tick (µs): the time each sample stands for. */
  tickUs: number;
  functions: CpuRow[];
  groups: Array<{ group: string; self: number }>;
}

const META = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

/** The group of an original (repo-relative) path or a built-in script URL. */
export function groupOf(where: string): string {
  if (where.startsWith("src/")) {
    const parts = where.split("/");
    return parts.length > 2 ? `ours: src/${parts[1]}` : `ours: ${where.split(":")[0]}`;
  }
  if (where.startsWith("bench/")) return "peer: bench/ (the SDK Worker's own code)";
  const modules = where.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = where.slice(modules + "node_modules/".length).split("/");
    const name = rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? "");
    if (name === "wrangler" || name === "miniflare") return "wrangler dev glue (local only)";
    return name;
  }
  if (where.startsWith("__mf_") || where.includes(".wrangler/"))
    return "wrangler dev glue (local only)";
  if (where.startsWith("node-internal:") || where.startsWith("node:"))
    return "workerd: node.js compat modules";
  if (where.startsWith("cloudflare-internal:") || where.startsWith("cloudflare:"))
    return "workerd: built-in JS modules";
  return "native: other runtime APIs (bindings, fetch, streams)";
}

type Frame = CpuProfile["nodes"][number]["callFrame"];

/**
 * A frame's function name and where it starts, as an original repo-relative file:line when its
 * script has a source map (and the original name where the bundler renamed it: `dispatch2`).
 */
export function locate(
  frame: Frame,
  scripts: Map<string, LoadedScript>,
  root: string,
): { name: string; where: string } {
  const script = scripts.get(frame.scriptId);
  const url = script?.url ?? frame.url;
  let name = frame.functionName || "(anonymous)";
  if (script?.map && frame.lineNumber >= 0) {
    const entry = script.map.findEntry(frame.lineNumber, Math.max(0, frame.columnNumber));
    if ("originalSource" in entry) {
      const source = entry.originalSource.startsWith("file:")
        ? new URL(entry.originalSource).pathname
        : resolve(script.mapDir, entry.originalSource);
      // Node fills `name` (the identifier mapped there); its types do not declare it yet.
      const original = (entry as { name?: string }).name;
      if (original && /^\d+$/.test(name.slice(original.length)) && name.startsWith(original))
        name = original;
      return { name, where: `${relative(root, source)}:${entry.originalLine + 1}` };
    }
  }
  // wrangler's bundle directory has a new name each run.
  const path = (url.startsWith("file:") ? relative(root, new URL(url).pathname) : url).replace(
    /\.wrangler\/tmp\/[^/]+\//,
    ".wrangler/tmp/*/",
  );
  return { name, where: path ? `${path}:${frame.lineNumber + 1}` : "" };
}

/**
 * The sampler's tick (µs). V8 samples on a fixed tick (longer than the interval asked for: the
 * sampler's own cost) and only while the isolate is in use, so the gaps between samples are
 * whole multiples of it: one tick while the isolate runs, more across time spent outside it
 * (waiting for I/O, or running another isolate such as the D1 and R2 simulators). The tick is
 * the median of the gaps near the shortest common one (the 10th percentile); pass the gaps of
 * several profiles taken together when some are sparse.
 */
export function tickUs(deltas: number[]): number {
  const sorted = deltas.filter((d) => d > 0).sort((a, b) => a - b);
  const low = sorted[Math.floor(sorted.length / 10)] ?? 0;
  const near = sorted.filter((d) => d >= 0.7 * low && d <= 1.6 * low);
  return near[near.length >> 1] ?? low;
}

/** Self time by group, largest first. */
function groupsOf(functions: CpuRow[]): CpuSummary["groups"] {
  const groups = new Map<string, number>();
  for (const r of functions) groups.set(r.group, (groups.get(r.group) ?? 0) + r.self);
  return [...groups].map(([group, self]) => ({ group, self })).sort((a, b) => b.self - a.self);
}

/**
 * Summarises a profile of `tasks` tasks; `root` is the repository (paths are shown from it);
 * `tick` the time a sample stands for (µs).
 */
export function summarize(
  profile: CpuProfile,
  scripts: Map<string, LoadedScript>,
  tasks: number,
  root: string,
  tick = tickUs(profile.timeDeltas),
): CpuSummary {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const labels = new Map<number, Omit<CpuRow, "self" | "total">>();
  /** A native frame (no script: a runtime API) is named with its JavaScript caller. */
  const labelOf = (id: number): Omit<CpuRow, "self" | "total"> => {
    const known = labels.get(id);
    if (known) return known;
    const frame = (byId.get(id) as CpuProfile["nodes"][number]).callFrame;
    let label: Omit<CpuRow, "self" | "total">;
    if (META.has(frame.functionName)) label = { name: frame.functionName, where: "", group: "" };
    else if (frame.url === "" && !scripts.has(frame.scriptId)) {
      const up = parent.get(id);
      const caller = up === undefined ? null : labelOf(up);
      const from = caller && !META.has(caller.name) ? caller : null;
      const name = frame.functionName || "(anonymous)";
      label = {
        name: from
          ? `${name} (native, from ${from.name.replace(/ \(native.*$/, "")})`
          : `${name} (native)`,
        where: from?.where ?? "",
        group:
          name === "exec"
            ? "native: SQLite (sql.exec)"
            : "native: other runtime APIs (bindings, fetch, streams)",
      };
    } else {
      const { name, where } = locate(frame, scripts, root);
      label = { name, where, group: groupOf(where) };
    }
    labels.set(id, label);
    return label;
  };
  const keyOf = new Map<number, string>();
  const rows = new Map<string, CpuRow>();
  for (const n of profile.nodes) {
    const label = labelOf(n.id);
    const key = `${label.name} ${label.where}`;
    keyOf.set(n.id, key);
    if (!rows.has(key)) rows.set(key, { ...label, self: 0, total: 0 });
  }
  const us = tick;
  const meta: Record<string, number> = {};
  for (const id of profile.samples) {
    const key = keyOf.get(id) ?? "";
    const row = rows.get(key);
    if (!row) continue;
    row.self += us;
    if (META.has(row.name)) {
      meta[row.name] = (meta[row.name] ?? 0) + us;
      continue;
    }
    // Total: once per function on the sample's stack (recursion counted once).
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      const k = keyOf.get(node);
      if (k && !seen.has(k)) {
        seen.add(k);
        const r = rows.get(k);
        if (r && !META.has(r.name)) r.total += us;
      }
    }
  }
  const per = (us: number) => us / 1000 / tasks;
  const functions = [...rows.values()]
    .filter((r) => !META.has(r.name) && r.total > 0)
    .map((r) => ({ ...r, self: per(r.self), total: per(r.total) }))
    .sort((a, b) => b.self - a.self);
  return {
    tasks,
    js: functions.reduce((sum, r) => sum + r.self, 0),
    program: per(meta["(program)"] ?? 0),
    gc: per(meta["(garbage collector)"] ?? 0),
    wall: per(profile.endTime - profile.startTime),
    tickUs: us,
    functions,
    groups: groupsOf(functions),
  };
}

/** The mean of summaries of the same measurement repeated (functions matched by name and place). */
export function meanSummary(summaries: CpuSummary[]): CpuSummary {
  const n = summaries.length;
  const mean = (pick: (s: CpuSummary) => number) =>
    summaries.reduce((sum, s) => sum + pick(s), 0) / n;
  const rows = new Map<string, CpuRow>();
  for (const s of summaries)
    for (const r of s.functions) {
      const key = `${r.name} ${r.where}`;
      const row = rows.get(key) ?? { ...r, self: 0, total: 0 };
      row.self += r.self / n;
      row.total += r.total / n;
      rows.set(key, row);
    }
  const functions = [...rows.values()].sort((a, b) => b.self - a.self);
  return {
    tasks: summaries[0]?.tasks ?? 0,
    js: mean((s) => s.js),
    program: mean((s) => s.program),
    gc: mean((s) => s.gc),
    wall: mean((s) => s.wall),
    tickUs: mean((s) => s.tickUs),
    functions,
    groups: groupsOf(functions),
  };
}
