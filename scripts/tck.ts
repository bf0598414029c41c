/**
 * `npm run tck`: the official A2A conformance kit (a2aproject/a2a-tck at the pinned commits, built
 * in .tck/ or A2A_TCK_DIR by `npm run tck:setup`; a missing, other or venv-less kit is refused
 * with what to run) against the conformance agent. Starts the dev server
 * (scripts/dev.ts, as `npm run dev` does) on a free port with its own state directory and
 * CONFORMANCE_AGENT=true, runs the v1.0 kit (JSON-RPC and HTTP+JSON) on
 * /agents/conformance/ and the v0.3 kit on the root (it reads the card at the domain root, so
 * the conformance agent is the default agent there), prints both summaries, stops the server
 * (its whole process group) and exits 1 when either kit has a MUST failure.
 * Full outputs: test-results/tck/. Not part of `npm test`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { kitDir, kitProblem, pins } from "./tck-kit.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const kit = kitDir(root);
const runTck = join(kit, "run-tck.sh");
const results = join(root, "test-results", "tck");

/** The dev server's vars: the conformance agent on (and the default agent, for the v0.3 kit),
 * private push URLs allowed (the kit's webhook receiver is on 127.0.0.1), no stream limit (the
 * kit leaves subscriptions to tasks that wait for input open). */
const VARS = [
  "CONFORMANCE_AGENT:true",
  "WEB_FETCH_ALLOW_PRIVATE:true",
  "DEFAULT_AGENT:conformance",
  "MAX_CONCURRENT_STREAMS:0",
];

/** Whether the kit is the pinned one, ready to run; if not, says so and what to run. */
function kitIsBuilt(): boolean {
  const problem = kitProblem(kit, pins());
  if (problem) {
    console.error(
      `tck: ${problem}: run npm run tck:setup (it fetches the kit at the pinned commits and makes its Python venv), then npm run tck again`,
    );
    return false;
  }
  return true;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function waitForHealth(base: string, server: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 480 && server.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.pid === undefined) return Promise.resolve();
  const pid = server.pid;
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000);
    server.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(force);
      resolve();
    }
  });
}

/** Runs one kit; returns its summary section and its MUST failures (null: the run broke). */
function runKit(name: string, args: string[]): { summary: string; mustFailed: number | null } {
  const run = spawnSync(runTck, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  writeFileSync(join(results, `${name}.log`), output);
  const summary = output.slice(output.lastIndexOf("=== summary")).trim();
  const must = /^MUST (\d+) (\d+)/m.exec(summary);
  return {
    summary: summary.startsWith("=== summary")
      ? summary
      : `(no summary; see test-results/tck/${name}.log)`,
    mustFailed: must ? Number(must[2]) : null,
  };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(
      "usage: npm run tck [-- --check]\n\nRuns the official A2A conformance kit (built by npm run tck:setup) against the\nconformance agent of a dev server of its own; --check only checks that the kit is built.\n",
    );
    return 0;
  }
  const unknown = args.find((a) => a !== "--check");
  if (unknown) {
    console.error(`tck: unknown option ${unknown}\n\nusage: npm run tck [-- --check]`);
    return 2;
  }
  if (!kitIsBuilt()) return 2;
  if (args.includes("--check")) {
    console.log(
      `tck: the kit in ${kit} is ready (${pins()
        .map((p) => `${p.branch}@${p.commit.slice(0, 7)}`)
        .join(", ")})`,
    );
    return 0;
  }
  mkdirSync(results, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const state = mkdtempSync(join(tmpdir(), "a2a-tck-state-"));
  const log = join(results, "dev-server.log");
  const out = createWriteStream(log);
  const server = spawn(
    process.execPath,
    [
      join(root, "scripts", "dev.ts"),
      "--port",
      String(port),
      "--persist-to",
      state,
      ...VARS.flatMap((v) => ["--var", v]),
    ],
    { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.pipe(out);
  server.stderr?.pipe(out);
  const interrupted = () => void stop(server).then(() => process.exit(130));
  process.on("SIGINT", interrupted);
  process.on("SIGTERM", interrupted);
  try {
    console.log(`tck: dev server on ${base} (${VARS.join(", ")})`);
    if (!(await waitForHealth(base, server))) {
      console.error(`tck: the dev server did not start; see test-results/tck/dev-server.log`);
      return 1;
    }
    console.log("tck: v1.0 kit (JSON-RPC, HTTP+JSON) on /agents/conformance/ ...");
    const v1 = runKit("v1.0", [`${base}/agents/conformance/`]);
    console.log(`\n== A2A TCK v1.0\n${v1.summary}\n`);
    console.log("tck: v0.3 kit on / (the conformance agent is the default agent) ...");
    const v03 = runKit("v0.3", ["--spec", "0.3", `${base}/`]);
    console.log(`\n== A2A TCK v0.3\n${v03.summary}\n`);
    const failed = [v1, v03].some((r) => r.mustFailed !== 0);
    console.log(failed ? "tck: MUST failures (or a broken run) above" : "tck: no MUST failure");
    return failed ? 1 : 0;
  } finally {
    await stop(server);
    out.end();
    rmSync(state, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`tck: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
