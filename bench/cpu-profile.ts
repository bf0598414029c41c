/**
 * `npm run bench:cpu`: CPU ms per one-turn task, from V8 CPU profiles, for this harness and the
 * SDK Worker peer with its D1 store (bench/sdk-worker/), both under `wrangler dev` with their state
 * on tmpfs (`--disk` puts it on disk) and their inspector on a port of their own, calling the
 * same scripted model (bench/cpu-bench.ts says how it measures). `--export` adds a third server,
 * ours with its OTLP/HTTP trace export on to a receiver on 127.0.0.1, so the CPU of building and
 * sending each task's spans shows beside ours with it off (and says how many spans the receiver
 * got per task: bench/trace-export.ts). `--tasks` per kind and pass (default 50), `--runs`
 * measurements averaged, alternating between the servers (1), `--warmup` (20), `--interval` the
 * Worker isolate's sampling interval in µs (100), `--isolate-interval` the other isolates' (1000),
 * `--top` functions listed (25), `--save-profiles <dir>` keeps the raw `.cpuprofile` files (one
 * folder per run), `--json <file>` writes every figure (all functions, mapped to their original
 * files). Starts what it needs and stops it. Not part of `npm test`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { FakeCollector } from "../test/fake-collector/server.ts";
import { startFakeModel } from "../test/fake-model/server.ts";
import { benchServers } from "./bench-servers.ts";
import * as cpu from "./cpu-bench.ts";
import { printCpu } from "./cpu-print.ts";
import {
  counted,
  EXPORT_ON,
  exportCheck,
  exportReceiver,
  printExportCheck,
} from "./trace-export.ts";

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
    export: { type: "boolean", default: false },
  },
});
const root = join(import.meta.dirname, "..");
const saveDir = values["save-profiles"];

const fake = await startFakeModel({ port: 0 });
const servers = benchServers({ disk: values.disk });
let collector: FakeCollector | null = null;
try {
  const oursVars = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" };
  const targets: cpu.CpuTarget[] = [
    await servers.serve("ours", { vars: oursVars }),
    await servers.serve("SDK Worker (D1)", {
      script: join(root, "bench", "sdk-worker", "dev.ts"),
      vars: { ANTHROPIC_BASE_URL: fake.url, TASK_STORE: "d1" },
    }),
  ];
  if (values.export) {
    const receiver = await exportReceiver();
    collector = receiver.collector;
    const vars = { ...oursVars, ...receiver.vars };
    targets.push(counted(await servers.serve(EXPORT_ON, { vars })));
  }
  // Runs alternate between the servers, so that the machine's drift hits all alike.
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
  const exportOn = targets.find((t) => t.name === EXPORT_ON);
  const exported = collector && exportOn ? await exportCheck(collector, exportOn) : null;
  printCpu(results, Number(values.top), [
    ["ours", "SDK Worker (D1)"],
    [EXPORT_ON, "ours"],
  ]);
  if (exported) printExportCheck(exported);
  if (saveDir) console.log(`\nraw profiles: ${saveDir}`);
  // The export-on server's entry carries the receiver's check.
  const written = results.map((r) => (r.name === EXPORT_ON ? { ...r, exportCheck: exported } : r));
  if (values.json) writeFileSync(values.json, JSON.stringify(written, null, 2));
} finally {
  await servers.stop();
  await collector?.close();
  await fake.close();
}
