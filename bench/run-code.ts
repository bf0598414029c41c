/**
 * `npm run bench:run-code`: how long one run_code call takes under `wrangler dev`, from asking the
 * Worker Loader for a fresh isolate to its answer (start-up included), as the tool reports it.
 * Starts the scripted model and the harness on 127.0.0.1, sends `--n` tasks (default 30) per
 * snippet whose scripted model calls run_code once with it, and prints p50/p95 of the run's total
 * time and of the time inside the isolate: a one-line snippet (start-up), a tight loop of 10^7
 * iterations and 10^6 function calls (what the guard costs: it reads the clock at each). Then how
 * soon the guard stops each attempt to get past it (test/fixtures/guard-escapes.ts) under a 500 ms
 * limit: the isolate's own duration of the run, p50 and the largest, against the limit, and the
 * slowest /health answer while they ran (the test suite holds only that each is stopped by the
 * limit and that /health answers, never how soon: that is the machine's speed).
 */
import { parseArgs } from "node:util";
import { startScriptedHarness } from "../test/e2e/dev-server.ts";
import { addScenario } from "../test/e2e/scenarios.ts";
import { GUARD_ESCAPES } from "../test/fixtures/guard-escapes.ts";
import { textToolTurn } from "../test/helpers/turns.ts";
import { sendText } from "./a2a-calls.ts";
import { watchHealth } from "./health-watch.ts";
import { percentile } from "./percentile.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "30" } } });
const n = Number(values.n);

const harness = await startScriptedHarness();
const { fake, server } = harness;
const SNIPPETS: Array<[string, string]> = [
  ["one-line snippet", "console.log(6 * 7)"],
  ["loop of 10^7 iterations", "let s = 0;\nfor (let i = 0; i < 1e7; i++) s += i;\nconsole.log(s)"],
  [
    "10^6 function calls",
    "const f = (x) => x + 1;\nlet s = 0;\nfor (let i = 0; i < 1e6; i++) s = f(s);\nconsole.log(s)",
  ],
];

async function measure(label: string, code: string): Promise<void> {
  const totals: number[] = [];
  const inside: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const s = addScenario(
      fake.store,
      [textToolTurn("run_code", { code }), { text: "done" }],
      "bench-run-code",
    );
    await sendText(`${server.url}/`, s.marker);
    const second = fake.store.requests(s.id)[1]?.body as
      | { messages: Array<{ content: unknown }> }
      | undefined;
    const text = JSON.stringify(second?.messages.at(-1)?.content ?? "");
    const match = /exit 0 in (\d+) ms \(isolate start and run: (\d+) ms\)/.exec(text);
    if (!match) throw new Error(`no run_code result in ${text.slice(0, 300)}`);
    if (i < 3) continue; // warm-up
    inside.push(Number(match[1]));
    totals.push(Number(match[2]));
  }
  console.log(`${label}, n=${n} (a fresh isolate each run)`);
  console.log(
    `  isolate start + run: p50 ${percentile(totals, 50)} ms, p95 ${percentile(totals, 95)} ms`,
  );
  console.log(
    `  inside the isolate:  p50 ${percentile(inside, 50)} ms, p95 ${percentile(inside, 95)} ms`,
  );
}

const GUARD_LIMIT_MS = 500;

/** The isolate's duration of each of `--n` runs of `code` under the guard's 500 ms limit. */
async function stopAfter(label: string, code: string): Promise<void> {
  const durations: number[] = [];
  let slowestHealth = 0;
  for (let i = 0; i < n; i++) {
    const s = addScenario(
      fake.store,
      [textToolTurn("run_code", { code, timeout_ms: GUARD_LIMIT_MS }), { text: "done" }],
      "bench-run-code-guard",
    );
    const health = watchHealth(server.url);
    await sendText(`${server.url}/`, s.marker);
    slowestHealth = Math.max(slowestHealth, await health.stop());
    const text = JSON.stringify(fake.store.requests(s.id)[1]?.body ?? "");
    const match = /exit 1 in (\d+) ms/.exec(text);
    if (!match || !text.includes("RangeError: time limit"))
      throw new Error(`${label}: not stopped by the time limit: ${text.slice(0, 300)}`);
    durations.push(Number(match[1]));
  }
  const p50 = percentile(durations, 50);
  const max = Math.max(...durations);
  console.log(
    `  ${label}: p50 ${p50} ms (${(p50 / GUARD_LIMIT_MS).toFixed(2)}x), largest ${max} ms (${(max / GUARD_LIMIT_MS).toFixed(2)}x); /health meanwhile: slowest ${Math.round(slowestHealth)} ms`,
  );
}

try {
  console.log("run_code under wrangler dev");
  for (const [label, code] of SNIPPETS) await measure(label, code);
  console.log(`the guard's stop, limit ${GUARD_LIMIT_MS} ms, n=${n} each`);
  for (const [label, code] of GUARD_ESCAPES) await stopAfter(label, code);
} finally {
  await harness.stop();
}
