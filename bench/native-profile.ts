/**
 * `npm run bench:native`: where the workerd process's CPU goes per one-turn task, native code
 * included, for this harness and the SDK Worker peer with its D1 store, both under `wrangler dev`
 * (state on tmpfs), the same scripted model. V8's profiles (`npm run bench:cpu`) see JavaScript
 * only; this samples the whole process with Linux `perf` (`perf record -e cpu-clock -g`, workerd
 * ships its symbols) while `--tasks` (default 100) tasks of each kind run one at a time, each
 * followed by a quiet wait, and sorts each sample by the innermost part of the runtime on its
 * stack (bench/native-categories.ts): SQLite, RPC between the Worker and its objects, streams,
 * tracing, object creation, HTTP, the kernel, JavaScript of every isolate (ours, miniflare's D1
 * and R2 simulators, its observability collector). Needs `perf` on the PATH and leave to profile
 * a process of the same user (`kernel.perf_event_paranoid` <= 2; the kernel's own time is sampled
 * only at <= 1 or as root, and its row says so otherwise): says so and stops when perf cannot
 * attach.
 * `--frequency` samples per second (1999). Starts what it needs and stops it. Not part of
 * `npm test`.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeModel } from "../test/fake-model/server.ts";
import { send, streamTimes, type Target } from "./a2a-calls.ts";
import { benchServers } from "./bench-servers.ts";
import { quiet } from "./cpu-bench.ts";
import { workerdPid } from "./devtools.ts";
import { CATEGORIES, type Category, countSamples } from "./native-categories.ts";

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "100" },
    warmup: { type: "string", default: "20" },
    frequency: { type: "string", default: "1999" },
  },
});
const tasks = Number(values.tasks);
const frequency = Number(values.frequency);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const probe = spawnSync("perf", ["stat", "-e", "cpu-clock", "true"], { encoding: "utf8" });
if (probe.error || probe.status !== 0) {
  console.error(
    `bench:native needs Linux perf and leave to use it (perf stat said: ${(probe.error?.message ?? probe.stderr).trim().split("\n")[0]}); on Debian: apt-get install linux-perf`,
  );
  process.exit(1);
}

/** Whether perf samples the kernel too: `kernel.perf_event_paranoid` at most 1, or root. */
const paranoid = Number(readFileSync("/proc/sys/kernel/perf_event_paranoid", "utf8").trim());
const kernelSampled = process.getuid?.() === 0 || paranoid <= 1;

type Kind = "blocking" | "streaming";
const run = (target: Target, kind: Kind) =>
  kind === "blocking" ? send(target) : streamTimes(target);

/** Samples `tasks` tasks of `kind`; ms of CPU per task by category, and in all. */
async function sample(target: Target, pid: number, kind: Kind, dir: string) {
  for (let i = 0; i < Number(values.warmup); i++) await run(target, kind);
  await quiet(pid, 0);
  const file = join(dir, `${target.name.replace(/\W+/g, "-")}-${kind}.data`);
  const args = ["record", "-e", "cpu-clock", "-F", String(frequency), "-g", "-p", String(pid)];
  const recorder = spawn("perf", [...args, "-o", file], { stdio: ["ignore", "ignore", "pipe"] });
  let perfSaid = "";
  recorder.stderr.on("data", (chunk: Buffer) => {
    perfSaid += chunk.toString("utf8");
  });
  const exited = once(recorder, "exit");
  await sleep(500); // perf attaches
  if (recorder.exitCode !== null)
    throw new Error(`perf record could not attach to ${pid}: ${perfSaid.trim().split("\n")[0]}`);
  for (let i = 0; i < tasks; i++) {
    await run(target, kind);
    await quiet(pid, 0);
  }
  recorder.kill("SIGINT");
  await exited;
  const script = spawnSync("perf", ["script", "-i", file], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).stdout;
  const { samples, by } = countSamples(script);
  const ms = (n: number) => (n * 1000) / frequency / tasks;
  return { total: ms(samples), by: new Map([...by].map(([k, n]) => [k, ms(n)])) };
}

const dir = mkdtempSync(join(tmpdir(), "a2a-native-"));
const fake = await startFakeModel({ port: 0 });
const servers = benchServers({ disk: false });
try {
  const root = join(import.meta.dirname, "..");
  const targets = [];
  for (const server of [
    await servers.serve("ours", {
      vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "bench-key" },
    }),
    await servers.serve("SDK Worker (D1)", {
      script: join(root, "bench", "sdk-worker", "dev.ts"),
      vars: { ANTHROPIC_BASE_URL: fake.url, TASK_STORE: "d1" },
    }),
  ]) {
    const pid = workerdPid(server.inspectorPort);
    if (pid === null) throw new Error(`${server.name}: the workerd process was not found`);
    targets.push({ target: server, pid });
  }
  for (const kind of ["blocking", "streaming"] as const) {
    const results = [];
    for (const { target, pid } of targets) results.push(await sample(target, pid, kind, dir));
    const [a, b] = results;
    if (!a || !b) continue;
    console.log(
      `\n${kind}: workerd process CPU per one-turn task by what the runtime was doing (perf, ${tasks} tasks, ${frequency} Hz; ms)`,
    );
    console.log("| | ours | SDK Worker (D1) | ours - SDK |\n| --- | ---: | ---: | ---: |");
    const row = (name: string, x: number, y: number) =>
      console.log(`| ${name} | ${x.toFixed(2)} | ${y.toFixed(2)} | ${(x - y).toFixed(2)} |`);
    for (const category of CATEGORIES as readonly Category[]) {
      if (category.startsWith("kernel") && !kernelSampled) {
        console.log(`| ${category} | not sampled | not sampled | |`);
        continue;
      }
      row(category, a.by.get(category) ?? 0, b.by.get(category) ?? 0);
    }
    row("**all**", a.total, b.total);
  }
  console.log(
    "\nperf's own sampling slows the process: compare the two columns, not these figures with bench:cpu's.",
  );
} finally {
  await servers.stop();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
