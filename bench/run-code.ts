/**
 * `npm run bench:run-code`: how long one run_code call takes under `wrangler dev`, from asking the
 * Worker Loader for a fresh isolate to its answer (start-up included), as the tool reports it.
 * Starts the scripted model and the harness on 127.0.0.1, sends `--n` tasks (default 30) per
 * snippet whose scripted model calls run_code once with it, and prints p50/p95 of the run's total
 * time and of the time inside the isolate: a one-line snippet (start-up), a tight loop of 10^7
 * iterations and 10^6 function calls (what the guard costs: it reads the clock at each).
 */
import { parseArgs } from "node:util";
import { startScriptedHarness } from "../test/e2e/dev-server.ts";
import { addScenario } from "../test/e2e/scenarios.ts";
import { textToolTurn } from "../test/helpers/turns.ts";
import { sendText } from "./a2a-calls.ts";
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

try {
  console.log("run_code under wrangler dev");
  for (const [label, code] of SNIPPETS) await measure(label, code);
} finally {
  await harness.stop();
}
