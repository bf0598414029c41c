/**
 * `npm run bench:subagent`: the added latency of a remote sub-agent call over an in-process one.
 * Starts the scripted model and two `wrangler dev` instances over one state directory: A serves
 * every agent; B runs its researcher remotely on A (DISTRIBUTED_AGENTS=researcher). Each sample
 * is one blocking SendMessage whose task delegates once to the researcher (parent: 2 model turns,
 * child: 1), alternating A (in-process) and B (distributed). Prints p50/p95 per mode and the
 * difference. `--n` samples per mode (default 30), `--json <file>` writes them.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { freePort, freshStateDir, startDevServer } from "../test/e2e/dev-server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";

const { values } = parseArgs({
  options: { n: { type: "string", default: "30" }, json: { type: "string" } },
});
const n = Number(values.n);

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

const fake = await startFakeModel({ port: 0 });
const shared = freshStateDir();
const common = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" };
const portA = await freePort();
const a = await startDevServer({ port: portA, persistDir: shared, vars: common });
const b = await startDevServer({
  port: await freePort(),
  persistDir: shared,
  vars: {
    ...common,
    A2A_AGENTS: JSON.stringify({
      researcher: { url: `http://127.0.0.1:${portA}/agents/researcher/` },
    }),
    DISTRIBUTED_AGENTS: "researcher",
  },
});

async function delegation(url: string): Promise<number> {
  const child = `bench-${crypto.randomUUID()}`;
  const parent = `bench-${crypto.randomUUID()}`;
  fake.store.addScenario({ id: child, turns: [{ text: "child answer" }] });
  fake.store.addScenario({
    id: parent,
    turns: [
      {
        toolUses: [
          {
            name: "task",
            input: {
              subagent_type: "researcher",
              description: "bench",
              prompt: `go [[scenario:${child}]]`,
            },
          },
        ],
      },
      { text: "parent answer" },
    ],
  });
  const started = performance.now();
  const response = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ text: `[[scenario:${parent}]]` }],
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
  const elapsed = performance.now() - started;
  if (body.result?.task?.status?.state !== "TASK_STATE_COMPLETED")
    throw new Error(`unexpected: ${JSON.stringify(body).slice(0, 400)}`);
  return elapsed;
}

const samples = { local: [] as number[], remote: [] as number[] };
try {
  for (let i = 0; i < 5; i++) {
    await delegation(a.url);
    await delegation(b.url);
  }
  for (let i = 0; i < n; i++) {
    samples.local.push(await delegation(a.url));
    samples.remote.push(await delegation(b.url));
    fake.store.reset();
  }
} finally {
  await b.stop();
  await a.stop();
  await fake.close();
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
