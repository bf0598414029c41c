/**
 * `npm run bench:answer`: what streaming a long answer costs. Starts the scripted Messages API and
 * the harness under `wrangler dev`, then streams answers of `--sizes` kilobytes (default 30, 90
 * and 270) in deltas of `--delta` characters (default 16, about a model's), one at a time, read to
 * the end of the stream, while `/health` is asked every 100 ms. Prints each answer's wall time,
 * its time per kilobyte (flat when the cost is linear in the length) and the slowest `/health`
 * answer meanwhile. Not part of `npm test`.
 */
import { parseArgs } from "node:util";
import { messageCallBody } from "../test/e2e/client.ts";
import { startScriptedHarness } from "../test/e2e/dev-server.ts";
import { addScenario } from "../test/e2e/scenarios.ts";
import { watchHealth } from "./health-watch.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "30,90,270" },
    delta: { type: "string", default: "16" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const delta = Number(values.delta);

/** Streams the answer `marker` selects to its end: the wall time (ms), the SSE events read. */
async function streamAnswer(base: string, marker: string): Promise<{ ms: number; events: number }> {
  const start = performance.now();
  const response = await fetch(`${base}/`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "A2A-Version": "1.0",
      Accept: "text/event-stream",
    },
    body: messageCallBody("SendStreamingMessage", `answer at length ${marker}`),
  });
  if (!response.body) throw new Error("no stream");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    events += value.split("\ndata:").length - 1;
  }
  return { ms: performance.now() - start, events };
}

const harness = await startScriptedHarness();
try {
  const base = harness.server.url;
  await streamAnswer(base, addScenario(harness.fake.store, [{ text: "warm up" }]).marker);
  console.log(`answer size  delta  wall (ms)  ms per KB  slowest /health meanwhile (ms)`);
  for (const kb of sizes) {
    const text = "lorem ipsum dolor sit amet "
      .repeat(Math.ceil((kb * 1024) / 27))
      .slice(0, kb * 1024);
    const { marker } = addScenario(harness.fake.store, [{ text, chunkSize: delta }]);
    const health = watchHealth(base);
    const { ms } = await streamAnswer(base, marker);
    const slowest = await health.stop();
    console.log(
      `${`${kb} KB`.padStart(11)}  ${String(delta).padStart(5)}  ${ms.toFixed(0).padStart(9)}  ${(ms / kb).toFixed(1).padStart(9)}  ${slowest.toFixed(0).padStart(30)}`,
    );
  }
} finally {
  await harness.stop();
}
