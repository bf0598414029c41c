/**
 * Splits the Worker isolate's profile (bench/cpu-analysis.ts) by the invocation its samples ran in,
 * for the deployed bench (bench/deployed-task.ts): under `wrangler dev` the Worker and every
 * Durable Object share one isolate, and a V8 profile has no invocation ids, so each sample goes to
 * the side of the **bottom-most frame on its stack that only one side runs** (the rules below, by
 * original file, first match): an event's entry (a Hono handler, an object's method) or, after an
 * `await`, the async function resumed. Frames of code both sides run (src/platform, src/store,
 * src/protocol, src/config, the limit guard's wrappers, npm packages but Hono and the model's SDK,
 * workerd's modules) are looked through. A sample with no such frame is "unattributed" (shared code resumed on its
 * own, workerd's built-in JavaScript); `(program)` and GC have no stack and stay apart (the
 * bench prints them). Pure: no I/O.
 */
import type { CpuProfile } from "./cpu-analysis.ts";
import { locate } from "./cpu-analysis.ts";
import type { LoadedScript } from "./devtools.ts";

/** The sides a sample can go to. */
export const SIDES = [
  "edge Worker (fetch)",
  "task object",
  "user object",
  "workspace object",
  "conversation object",
  "event hub",
  "unattributed",
] as const;
export type Side = (typeof SIDES)[number];

/**
 * Which side runs a frame, by `function where` (where = original file:line; names are the
 * bundle's, often minified), first match; none: code both run. Order matters: the task's helpers
 * the edge runs come before their folders. ndjson.ts's one async function is `decodeLines`, the
 * edge's reader of a task's stream (its `encodeLine` is called from the task's own code, which
 * decides first); the model's SDK runs in the task object only.
 */
const RULES: Array<[RegExp, Side]> = [
  [/ src\/task\/runtime\/ndjson\.ts/, "edge Worker (fetch)"],
  [/ src\/workspace\/client\.ts/, "task object"],
  [/ src\/users\/rate-limit\.ts/, "edge Worker (fetch)"],
  [/ src\/users\/limits\.ts/, "task object"],
  [/ src\/users\//, "user object"],
  [/ src\/workspace\//, "workspace object"],
  [/ src\/conversations\//, "conversation object"],
  [/ src\/events\/event-hub\.ts/, "event hub"],
  [
    / src\/(worker\.ts|a2a|edge|gateway|auth|api|ag-ui|mcp-server|console|events)\b|node_modules\/hono\//,
    "edge Worker (fetch)",
  ],
  [
    / src\/(task|loop|model|tools|hooks|subagents|programs|mcp|remote|push|trace)\/|node_modules\/@anthropic-ai\//,
    "task object",
  ],
];

/** CPU per task by side, and the entries (bottom-most deciding frames) behind each, in ms. */
export interface SideSplit {
  /** JavaScript CPU (ms per task) by side; sums to the profile's `js`. */
  sides: Record<Side, number>;
  /** The deciding frames (`function where`), ms per task, largest first. */
  entries: Array<{ side: Side; frame: string; ms: number }>;
}

const META = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

/** Splits `profile` of `tasks` tasks by side; `tick` the time a sample stands for (µs). */
export function splitBySide(
  profile: CpuProfile,
  scripts: Map<string, LoadedScript>,
  tasks: number,
  root: string,
  tick: number,
): SideSplit {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const frameOf = new Map<number, string>();
  const label = (id: number) => {
    let known = frameOf.get(id);
    if (known === undefined) {
      const frame = (byId.get(id) as CpuProfile["nodes"][number]).callFrame;
      const { name, where } = locate(frame, scripts, root);
      known = `${name} ${where}`;
      frameOf.set(id, known);
    }
    return known;
  };
  /** The deciding frame of the stack whose leaf is `leaf`, with its side (unattributed: the
   * stack's bottom-most frame). */
  const decided = new Map<number, { side: Side; frame: string }>();
  const decide = (leaf: number) => {
    const known = decided.get(leaf);
    if (known) return known;
    const stack: number[] = [];
    for (let n: number | undefined = leaf; n !== undefined; n = parent.get(n)) stack.push(n);
    const frames = stack
      .reverse()
      .filter((id) => !META.has(byId.get(id)?.callFrame.functionName ?? ""))
      .map(label);
    let found: { side: Side; frame: string } = { side: "unattributed", frame: frames[0] ?? "" };
    for (const frame of frames) {
      const rule = RULES.find(([pattern]) => pattern.test(frame));
      if (rule) {
        found = { side: rule[1], frame };
        break;
      }
    }
    decided.set(leaf, found);
    return found;
  };
  const sides = Object.fromEntries(SIDES.map((s) => [s, 0])) as Record<Side, number>;
  const entries = new Map<string, { side: Side; frame: string; ms: number }>();
  const per = tick / 1000 / tasks;
  for (const id of profile.samples) {
    const name = byId.get(id)?.callFrame.functionName ?? "";
    if (META.has(name)) continue;
    const found = decide(id);
    sides[found.side] += per;
    const key = `${found.side}\u0000${found.frame}`;
    const entry = entries.get(key) ?? { ...found, ms: 0 };
    entry.ms += per;
    entries.set(key, entry);
  }
  return { sides, entries: [...entries.values()].sort((a, b) => b.ms - a.ms) };
}
