/**
 * `npm run bench:chaos`: tasks under injected faults (src/platform/faults/). Starts the scripted
 * model and `npm run dev` with `FAULTS` (default {@link DEFAULT_FAULTS}; `--faults` another), then
 * runs `--n` tasks (default 20), `--concurrency` at a time (default 4), each three file writes in
 * three model turns and an answer, and polls each to its end. Reports:
 * - tasks lost: not ended within `--timeout` seconds (default 180), or gone;
 * - tasks failed by a transient fault: every injected fault is transient, so every FAILED task;
 * - tool effects duplicated: change-history rows beyond one per written file (a write done twice);
 * - extra model calls per reset: model calls beyond those of a task no fault touched (the fewest
 *   any task made), over the object resets injected (counted from the server's log);
 * - resume delay p50/p95: per task, the longest pause between two of its model calls (a
 *   fault-free task's is its longest tool step, about half a second here).
 * `--json <file>` writes the figures.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startScriptedHarness } from "../test/e2e/dev-server.ts";
import { addScenario } from "../test/e2e/scenarios.ts";
import { toolTurn } from "../test/helpers/turns.ts";
import { percentile } from "./percentile.ts";

/** Faults on every seam, at rates a busy production day might see in an hour. */
const DEFAULT_FAULTS = [
  "users.reserve:error:0.2",
  "users.settle:lost:0.2",
  "task.create:lost:0.1",
  "workspace.write:lost:0.2",
  "r2.put:error:0.1",
  "d1:error:0.05",
  "model:529:0.1",
  "task:reset:0.03",
].join(",");

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "20" },
    concurrency: { type: "string", default: "4" },
    faults: { type: "string", default: DEFAULT_FAULTS },
    timeout: { type: "string", default: "180" },
    json: { type: "string" },
  },
});
const n = Number(values.n);
const KEY = "chaos-bench-key";
const harness = await startScriptedHarness({ FAULTS: values.faults, A2A_API_KEY: KEY });
const { fake, server } = harness;
const headers = {
  "content-type": "application/json",
  "A2A-Version": "1.0",
  Authorization: `Bearer ${KEY}`,
};

/** A JSON-RPC call to the default agent; its result (null on an error or a dropped call). */
async function rpc(method: string, params: unknown): Promise<Record<string, unknown> | null> {
  const response = await fetch(`${server.url}/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  }).catch(() => null);
  if (!response?.ok) return null;
  const body = (await response.json().catch(() => null)) as { result?: unknown } | null;
  const result = body?.result;
  return typeof result === "object" && result !== null ? { ...result } : null;
}

interface Outcome {
  state: string;
  agent: string | null;
  scenario: string;
  paths: string[];
}

const TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED"];

/** One task: three writes, an answer; polled to its end (or the timeout). */
async function oneTask(i: number): Promise<Outcome> {
  const paths = ["a", "b", "c"].map((f) => `chaos/t${i}/${f}.md`);
  const s = addScenario(fake.store, [
    ...paths.map((path) => toolTurn("write_file", { path, content: `task ${i}: ${path}\n` })),
    { text: `task ${i} done` },
  ]);
  const message = {
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    parts: [{ text: `chaos ${i} ${s.marker}` }],
  };
  let sent: Record<string, unknown> | null = null;
  for (let attempt = 0; attempt < 5 && !sent; attempt++)
    sent = await rpc("SendMessage", { message, configuration: { returnImmediately: true } });
  const task = (sent?.task ?? null) as { id?: string; metadata?: { agent?: string } } | null;
  if (!task?.id) return { state: "lost (never created)", agent: null, scenario: s.id, paths };
  const deadline = Date.now() + Number(values.timeout) * 1000;
  let state = "lost (not ended)";
  while (Date.now() < deadline) {
    const got = await rpc("GetTask", { id: task.id });
    const status = (got?.status ?? null) as { state?: string } | null;
    if (status?.state && TERMINAL.includes(status.state)) {
      state = status.state;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { state, agent: task.metadata?.agent ?? null, scenario: s.id, paths };
}

/** Change-history rows per path of the caller's workspace with `agent` (the newest 100). */
async function changesByPath(agent: string): Promise<Map<string, number>> {
  const response = await fetch(`${server.url}/api/workspaces/${agent}/state`, { headers });
  const body = (await response.json()) as { changes?: Array<{ path: string | null }> };
  const counts = new Map<string, number>();
  for (const change of body.changes ?? [])
    if (change.path) counts.set(change.path, (counts.get(change.path) ?? 0) + 1);
  return counts;
}

const outcomes: Outcome[] = [];
let duplicated = 0;
const started = performance.now();
try {
  // In batches whose writes fit in the 100 change rows the state route lists.
  const batch = Math.min(Number(values.concurrency), 30);
  for (let from = 0; from < n; from += batch) {
    const ids = Array.from({ length: Math.min(batch, n - from) }, (_, k) => from + k);
    const done = await Promise.all(ids.map(oneTask));
    outcomes.push(...done);
    const agent = done.find((o) => o.agent)?.agent;
    if (!agent) continue;
    const counts = await changesByPath(agent);
    for (const o of done)
      for (const p of o.paths) duplicated += Math.max(0, (counts.get(p) ?? 0) - 1);
  }
} finally {
  await harness.stop();
}
const seconds = (performance.now() - started) / 1000;

const resets = (server.output().match(/reset the object/g) ?? []).length;
const calls = outcomes.map((o) => fake.store.requests(o.scenario));
// A task no fault touched makes the fewest calls (its turns, and the harness's own).
const fewest = Math.min(...calls.map((c) => c.length));
const extraCalls = calls.reduce((sum, c) => sum + c.length - fewest, 0);
const gaps = calls.map((c) => {
  const at = c.map((r) => r.at).sort((a, b) => a - b);
  return at.slice(1).reduce((max, t, k) => Math.max(max, t - (at[k] ?? t)), 0);
});
const count = (pred: (o: Outcome) => boolean) => outcomes.filter(pred).length;
const figures = {
  tasks: n,
  faults: values.faults,
  seconds: Math.round(seconds),
  completed: count((o) => o.state === "TASK_STATE_COMPLETED"),
  lost: count((o) => o.state.startsWith("lost")),
  failedByTransientFault: count((o) => o.state === "TASK_STATE_FAILED"),
  toolEffectsDuplicated: duplicated,
  resets,
  extraModelCalls: extraCalls,
  extraModelCallsPerReset: resets > 0 ? Number((extraCalls / resets).toFixed(2)) : null,
  resumeDelayP50Ms: Math.round(percentile(gaps, 50)),
  resumeDelayP95Ms: Math.round(percentile(gaps, 95)),
};
console.log(`${n} tasks of 3 file writes under FAULTS=${values.faults}`);
console.log("| figure | value |\n| --- | ---: |");
for (const [k, v] of Object.entries(figures)) if (k !== "faults") console.log(`| ${k} | ${v} |`);
for (const o of outcomes.filter((x) => x.state !== "TASK_STATE_COMPLETED"))
  console.log(`not completed: ${o.scenario} ${o.state}`);
if (values.json) writeFileSync(values.json, JSON.stringify(figures, null, 2));
