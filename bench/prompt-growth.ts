/**
 * `npm run bench:prompt`: prompt size over one long conversation. Starts the scripted Messages
 * API and the harness under `wrangler dev` with its deployed defaults (CONTEXT_TOKEN_BUDGET
 * 60,000 unless `--budget` says otherwise), then sends `--turns` messages (default 200) into one
 * context, each a user turn of about 1,000 characters answered by a reply of about 3,000, and
 * measures the request the harness sent the model for each turn: estimated tokens of the whole
 * request (four characters a token, the harness's own estimate), of the system prompt, and the
 * number of messages, and what a prompt cache would have served of it (bench/prompt-cache.ts
 * models the API's cache from the request's breakpoints). Prints the sizes and cache read share at
 * selected turns, the largest request, and how many compaction (summary) calls were made. `--json <file>` also writes every sample. Not part of `npm test`.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startScriptedHarness } from "../test/e2e/dev-server.ts";
import { sendText } from "./a2a-calls.ts";
import { PromptCache, type PromptGrowth, type PromptSample } from "./prompt-cache.ts";

const { values } = parseArgs({
  options: {
    turns: { type: "string", default: "200" },
    budget: { type: "string" },
    json: { type: "string" },
  },
});
const turns = Number(values.turns);

type Sample = PromptSample;

const SUMMARY_SYSTEM = "You compress a conversation";
const tokens = (value: unknown) => Math.ceil(JSON.stringify(value ?? "").length / 4);
const filler = (n: number, word: string) => `${word} `.repeat(Math.ceil(n / (word.length + 1)));

const harness = await startScriptedHarness(
  values.budget ? { CONTEXT_TOKEN_BUDGET: values.budget } : {},
);
const { fake, server } = harness;
const samples: Sample[] = [];
const cache = new PromptCache();
try {
  let contextId: string | undefined;
  let compactions = 0;
  for (let turn = 1; turn <= turns; turn++) {
    const reply = `Answer ${turn}: ${filler(3_000, "reply")}`.replaceAll("]", "");
    const text = `Question ${turn}: ${filler(1_000, "context")}[[reply:${reply}]]`;
    const body = await sendText(`${server.url}/`, text, contextId);
    const task = body.result?.task;
    if (task?.status?.state !== "TASK_STATE_COMPLETED")
      throw new Error(`turn ${turn}: ${JSON.stringify(body).slice(0, 500)}`);
    contextId = task.contextId;
    // The log is cleared after each turn, so it holds this turn's requests only.
    let last: { system?: unknown; messages?: unknown[] } | undefined;
    let use = { total: 0, read: 0, written: 0 };
    for (const entry of fake.store.requests()) {
      const request = entry.body as { system?: unknown; messages?: unknown[] };
      const used = cache.use(request);
      if (JSON.stringify(request.system ?? "").includes(SUMMARY_SYSTEM)) compactions += 1;
      else {
        last = request;
        use = used;
      }
    }
    if (!last) throw new Error(`turn ${turn}: no model request was logged`);
    fake.store.reset();
    samples.push({
      turn,
      requestTokens: tokens(last),
      systemTokens: tokens(last.system),
      messages: last.messages?.length ?? 0,
      compactions,
      cacheRead: use.read,
      cacheShare: use.total > 0 ? use.read / use.total : 0,
    });
  }
} finally {
  await harness.stop();
}

const show = [1, 10, 20, 50, 100, 150, 200].filter((t) => t <= turns);
console.log(
  `prompt size over one context of ${turns} turns (CONTEXT_TOKEN_BUDGET ${values.budget ?? "60000 (default)"}; tokens estimated at 4 chars)`,
);
console.log(
  "| turn | request tokens | system prompt tokens | messages | compactions so far | cache read tokens | cache read share |",
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
for (const t of show) {
  const s = samples[t - 1] as Sample;
  console.log(
    `| ${t} | ${s.requestTokens} | ${s.systemTokens} | ${s.messages} | ${s.compactions} | ${s.cacheRead} | ${pct(s.cacheShare)} |`,
  );
}
const meanShare = samples.reduce((sum, s) => sum + s.cacheShare, 0) / samples.length;
const readAll = samples.reduce((sum, s) => sum + s.cacheRead, 0);
const sentAll = samples.reduce((sum, s) => sum + s.requestTokens, 0);
console.log(
  `cache read share: mean per turn ${pct(meanShare)}, of all request tokens ${pct(readAll / sentAll)}`,
);
const largest = samples.reduce((a, b) => (b.requestTokens > a.requestTokens ? b : a));
console.log(`largest request: ${largest.requestTokens} tokens at turn ${largest.turn}`);
if (values.json)
  writeFileSync(
    values.json,
    JSON.stringify(
      {
        turns,
        meanCacheShare: meanShare,
        cacheShareOfTokens: readAll / sentAll,
        samples,
      } satisfies PromptGrowth,
      null,
      2,
    ),
  );
