/**
 * `npm run bench:cpu`: CPU ms per one-turn task, from V8 CPU profiles, for this harness and the
 * SDK Worker peer with its D1 store (bench/sdk-worker/), both under `wrangler dev` with their state
 * on tmpfs (`--disk` puts it on disk) and their inspector on a port of their own, calling the
 * same scripted model (bench/cpu-bench.ts says how it measures). `--tasks` per kind and pass
 * (default 50), `--runs` measurements averaged, alternating between the servers (1), `--warmup`
 * (20), `--interval` the Worker isolate's sampling interval in µs (100), `--isolate-interval`
 * the other isolates' (1000), `--top` functions listed (25), `--save-profiles <dir>` keeps the
 * raw `.cpuprofile` files (one folder per run), `--json <file>` writes every figure (all
 * functions, mapped to their original files). Starts what it needs and stops it. Not part of
 * `npm test`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeModel } from "../test/fake-model/server.ts";
import { benchServers } from "./bench-servers.ts";
import * as cpu from "./cpu-bench.ts";
import { printCpu } from "./cpu-print.ts";

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "50" },
    runs: { type: "string", default: "1" },
    warmup: { type: "string", default: String(cpu.CPU_DEFAULTS.warmup) },
    interval: { type: "string", default: String(cpu.CPU_DEFAULTS.intervalUs) },
    "isolate-interval": { type: "string", default: String(cpu.CPU_DEFAULTS.isolateIntervalUs) },
    top: { type: "string", default: "25" },
    "save-profiles": { type: "string" },
    json: { type: "string" },
    disk: { type: "boolean", default: false },
  },
});
const root = join(import.meta.dirname, "..");
const saveDir = values["save-profiles"];

const fake = await startFakeModel({ port: 0 });
const servers = benchServers({ disk: values.disk });
try {
  const oursVars = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" };
  const targets: cpu.CpuTarget[] = [
    await servers.serve("ours", { vars: oursVars }),
    await servers.serve("SDK Worker (D1)", {
      script: join(root, "bench", "sdk-worker", "dev.ts"),
      vars: { ANTHROPIC_BASE_URL: fake.url, TASK_STORE: "d1" },
    }),
  ];
  // Runs alternate between the servers, so that the machine's drift hits both alike.
  const runs: cpu.CpuResult[][] = targets.map(() => []);
  for (let run = 0; run < Number(values.runs); run++)
    for (const [i, target] of targets.entries())
      runs[i]?.push(
        await cpu.profileCpu(target, {
          tasks: Number(values.tasks),
          warmup: Number(values.warmup),
          intervalUs: Number(values.interval),
          isolateIntervalUs: Number(values["isolate-interval"]),
          root,
          saveDir: saveDir && join(saveDir, `run-${run + 1}`),
        }),
      );
  const results = runs.map(cpu.meanResult);
  printCpu(results, Number(values.top));
  if (saveDir) console.log(`\nraw profiles: ${saveDir}`);
  if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
} finally {
  await servers.stop();
  await fake.close();
}
