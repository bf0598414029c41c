/**
 * `npm run bench:run-code`: how long one run_code call takes under `wrangler dev`, from asking the
 * Worker Loader for a fresh isolate to its answer (start-up included), as the tool reports it.
 * Starts the scripted model and the harness on 127.0.0.1, sends `--n` tasks (default 30) per
 * snippet whose scripted model calls run_code once with it, and prints p50/p95 of the run's total
 * time and of the time inside the isolate: a one-line snippet (start-up), a tight loop of 10^7
 * iterations and 10^6 function calls (what the guard costs: it reads the clock at each).
 */
import { parseArgs } from "node:util";
import { freePort, startDevServer } from "../test/e2e/dev-server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "30" } } });
const n = Number(values.n);
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

const fake = await startFakeModel({ port: 0 });
const server = await startDevServer({
  port: await freePort(),
  vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" },
});
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
    const id = `bench-run-code-${crypto.randomUUID()}`;
    await fetch(`${fake.url}/_scripted/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id,
        turns: [{ text: "", toolUses: [{ name: "run_code", input: { code } }] }, { text: "done" }],
      }),
    });
    await fetch(`${server.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: i,
        method: "SendMessage",
        params: {
          message: {
            messageId: `m-${id}`,
            role: "ROLE_USER",
            parts: [{ text: `[[scenario:${id}]]` }],
          },
        },
      }),
    });
    const { requests } = (await (
      await fetch(`${fake.url}/_scripted/requests?scenario=${id}`)
    ).json()) as { requests: Array<{ body: { messages: Array<{ content: unknown }> } }> };
    const text = JSON.stringify(requests[1]?.body.messages.at(-1)?.content ?? "");
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
  await server.stop();
  await fake.close();
}
