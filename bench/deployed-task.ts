/**
 * `npm run bench:deployed`: one task on the deployed path. Starts `npm run dev -- --deployed`
 * (wrangler.toml's settings: closed, limits and budgets on; the bench's user and vars:
 * bench/deployed-profile.ts) with the storage meter, sends `--tasks` one-turn blocking tasks to
 * the default agent as that user (each after the server is quiet) and prints, for the last one:
 * Durable Object calls, object SQL statements and the rows they wrote (and by table), D1
 * statements and rows written, R2 operations (heads include the agent overrides check the isolate
 * makes while the bench polls the meter), and the sequential round trips the client waited on
 * before the model call started; then a second streaming task's object calls and sequential round
 * trips before its first event, and those of the first task and first stream, which found no
 * cached token or lease in the isolate (bench/deployed-counts.ts; `--statements`: each statement
 * that wrote).
 * The figures docs/deploy.md's plan table is read from.
 *
 * Then, on a second deployed server without the meter (its wrappers cost CPU):
 * - `--cpu N`: CPU per one-turn task, blocking and streaming (N of each per pass, bench/cpu-bench.ts),
 *   split by invocation, the edge Worker's fetch apart from each Durable Object's calls
 *   (bench/cpu-sides.ts), with the mean per call (calls counted above); `--top` deciding frames
 *   listed (default 12), `--save-profiles <dir>` keeps the raw profiles;
 * - `--memory C`: the isolate's JavaScript heap and the workerd process's RSS idle, under C
 *   concurrent clients sending `--memory-tasks` blocking tasks (default 8 per client), and after
 *   (bench/isolate-memory.ts).
 * Miniflare's local observability collector is off (as in `npm run bench`). `--json <file>` writes
 * every figure. Not part of `npm test`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeModel } from "../test/fake-model/server.ts";
import { benchServers } from "./bench-servers.ts";
import { CPU_DEFAULTS, type CpuResult, profileCpu } from "./cpu-bench.ts";
import { countTask } from "./deployed-counts.ts";
import { printInvocationCpu, printMemory } from "./deployed-print.ts";
import { type MemoryReport, memoryUnderLoad } from "./isolate-memory.ts";

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "3" },
    statements: { type: "boolean" },
    cpu: { type: "string", default: "0" },
    memory: { type: "string", default: "0" },
    "memory-tasks": { type: "string" },
    top: { type: "string", default: "12" },
    "save-profiles": { type: "string" },
    json: { type: "string" },
  },
});
const cpuTasks = Number(values.cpu);
const clients = Number(values.memory);
const root = join(import.meta.dirname, "..");
process.env.X_LOCAL_OBSERVABILITY = "false";

const fake = await startFakeModel({ port: 0 });
const servers = benchServers({ disk: false });
try {
  const modelVars = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" };
  const metered = await servers.serve("ours, deployed, metered", {
    vars: { ...modelVars, STORAGE_METER: "true" },
    deployed: true,
  });
  const { counts, statements } = await countTask(metered, Number(values.tasks));
  await metered.stop();
  console.log(JSON.stringify(counts, null, 2));
  // --statements: every statement that wrote, in order, with its object and rows.
  if (values.statements)
    for (const e of statements) if (e.rows) console.log(`${e.rows}  ${e.name}  ${e.sql}`);
  let cpu: CpuResult | null = null;
  let memory: MemoryReport | null = null;
  if (cpuTasks > 0 || clients > 0) {
    const ours = await servers.serve("ours, deployed", { vars: modelVars, deployed: true });
    if (cpuTasks > 0) {
      const saveDir = values["save-profiles"];
      cpu = await profileCpu(ours, {
        ...CPU_DEFAULTS,
        tasks: cpuTasks,
        root,
        sides: true,
        ...(saveDir ? { saveDir } : {}),
      });
      const calls = { blocking: counts.byObject, streaming: counts.streamingByObject };
      printInvocationCpu(cpu, calls, Number(values.top));
    }
    if (clients > 0) {
      const tasks = Number(values["memory-tasks"] ?? clients * 8);
      memory = await memoryUnderLoad(ours, clients, tasks);
      printMemory(memory);
    }
  }
  if (values.json) writeFileSync(values.json, JSON.stringify({ counts, cpu, memory }, null, 2));
} finally {
  await servers.stop();
  await fake.close();
}
