/**
 * `npm run bench:subagent`: the added latency of a remote sub-agent call over an in-process one.
 * Starts the scripted model and two `wrangler dev` instances over one state directory
 * (test/e2e/distributed-pair.ts): A serves every agent; B runs its researcher remotely on A
 * (DISTRIBUTED_AGENTS=researcher). Each sample
 * is one blocking SendMessage whose task delegates once to the researcher (parent: 2 model turns,
 * child: 1), alternating A (in-process) and B (distributed). Prints p50/p95 per mode and the
 * difference. `--n` samples per mode (default 30), `--json <file>` writes them.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startDistributedPair } from "../test/e2e/distributed-pair.ts";
import { addScenario } from "../test/e2e/scenarios.ts";
import { taskInput, toolTurn } from "../test/helpers/turns.ts";
import { sendText } from "./a2a-calls.ts";
import { percentile } from "./percentile.ts";

const { values } = parseArgs({
  options: { n: { type: "string", default: "30" }, json: { type: "string" } },
});
const n = Number(values.n);

const pair = await startDistributedPair();
const { a, b } = pair;
const { fake } = pair.harness;

/** One delegating task sent to `url`; how long its blocking send took (ms). */
async function delegated(url: string): Promise<number> {
  const child = addScenario(fake.store, [{ text: "child answer" }], "bench");
  const parent = addScenario(
    fake.store,
    [
      toolTurn("task", taskInput("researcher", "bench", `go ${child.marker}`)),
      { text: "parent answer" },
    ],
    "bench",
  );
  const started = performance.now();
  const body = await sendText(`${url}/`, parent.marker);
  const elapsed = performance.now() - started;
  if (body.result?.task?.status?.state !== "TASK_STATE_COMPLETED")
    throw new Error(`unexpected: ${JSON.stringify(body).slice(0, 400)}`);
  return elapsed;
}

const samples = { local: [] as number[], remote: [] as number[] };
try {
  for (let i = 0; i < 5; i++) {
    await delegated(a.url);
    await delegated(b.url);
  }
  for (let i = 0; i < n; i++) {
    samples.local.push(await delegated(a.url));
    samples.remote.push(await delegated(b.url));
    fake.store.reset();
  }
} finally {
  await pair.stop();
}

const row = (label: string, s: number[]) =>
  `| ${label} | ${percentile(s, 50).toFixed(1)} | ${percentile(s, 95).toFixed(1)} |`;
console.log(`one delegation to the researcher, blocking SendMessage, n=${n} per mode`);
console.log("| mode | p50 ms | p95 ms |\n| --- | ---: | ---: |");
console.log(row("in-process sub-agent", samples.local));
console.log(row("remote sub-agent (A2A over HTTP)", samples.remote));
console.log(
  `added by the remote call (p50): ${(percentile(samples.remote, 50) - percentile(samples.local, 50)).toFixed(1)} ms`,
);
if (values.json) writeFileSync(values.json, JSON.stringify(samples, null, 2));
