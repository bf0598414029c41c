/**
 * `npm run bench`: latency of the task engine under `wrangler dev` against the scripted model
 * with zero think time. Starts the scripted Messages API and the harness on 127.0.0.1, warms up,
 * then measures in alternation: an Agent Card fetch (the runtime's floor), a direct model call
 * (the model's floor), and a blocking SendMessage, and prints p50/p95/p99. `--json <file>`
 * also writes the figures. Not part of `npm test`: performance is measured, never asserted.
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { freePort, startDevServer } from "../test/e2e/dev-server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";

const { values } = parseArgs({
  options: { n: { type: "string", default: "200" }, json: { type: "string" } },
});
const iterations = Number(values.n);

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const fake = await startFakeModel({ port: 0 });
const server = await startDevServer({
  port: await freePort(),
  vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" },
});
try {
  const send = async () => {
    const response = await fetch(`${server.url}/`, {
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
            parts: [{ text: "[[reply:ok]]" }],
          },
        },
      }),
    });
    const body = (await response.json()) as { result?: { task?: { status?: { state?: string } } } };
    if (body.result?.task?.status?.state !== "TASK_STATE_COMPLETED")
      throw new Error(`unexpected: ${JSON.stringify(body)}`);
  };
  const card = async () => {
    const response = await fetch(`${server.url}/.well-known/agent-card.json`);
    await response.arrayBuffer();
  };
  const model = async () => {
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "bench-key",
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "m",
        max_tokens: 64,
        stream: true,
        messages: [{ role: "user", content: "[[reply:ok]]" }],
      }),
    });
    await response.text();
  };
  for (let i = 0; i < 20; i++) await Promise.all([send(), card(), model()]);
  const samples = { card: [] as number[], model: [] as number[], send: [] as number[] };
  for (let i = 0; i < iterations; i++) {
    samples.card.push(await timed(card));
    samples.model.push(await timed(model));
    samples.send.push(await timed(send));
  }
  const row = (name: string, s: number[]) => ({
    name,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
  });
  const rows = [
    row("Agent Card fetch (runtime floor)", samples.card),
    row("direct model call (model floor)", samples.model),
    row("blocking SendMessage", samples.send),
  ];
  const overhead = (rows[2]?.p50 ?? 0) - (rows[0]?.p50 ?? 0) - (rows[1]?.p50 ?? 0);
  console.log(
    `\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, n=${iterations}\n`,
  );
  console.log("| measurement | p50 ms | p95 ms | p99 ms |\n| --- | ---: | ---: | ---: |");
  for (const r of rows)
    console.log(`| ${r.name} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.p99.toFixed(2)} |`);
  console.log(
    `\nharness overhead (SendMessage p50 - card p50 - model p50): ${overhead.toFixed(2)} ms`,
  );
  if (values.json)
    writeFileSync(values.json, JSON.stringify({ iterations, rows, overheadMs: overhead }, null, 2));
} finally {
  await server.stop();
  await fake.close();
}
