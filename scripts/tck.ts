/**
 * `npm run tck`: the conformance kits against the conformance agent, each on a dev server of its
 * own (tck-server.ts; every card signed with a key made for the run):
 *   1. the official A2A TCK (a2aproject/a2a-tck at the pinned commits, built in .tck/ or
 *      A2A_TCK_DIR by `npm run tck:setup`; a missing, other or venv-less kit is refused with what
 *      to run), on an open server with CONFORMANCE_AGENT=true: the v1.0 kit (JSON-RPC and
 *      HTTP+JSON) on /agents/conformance/, the v0.3 kit on the root (it reads the card at the
 *      domain root, so the conformance agent is the default agent there);
 *   2. ACTS (the A2A Conformance Test Specification's corpus, read as data by scripts/acts/;
 *      tck-acts.ts) on a closed server, over JSON-RPC and HTTP+JSON (gRPC reported skipped);
 *   3. CARD-SIGN-001..003 on the conformance agent's signed cards, both generations, both servers;
 *   4. the a2a-jcs-v01 RFC 8785 vectors (test/e2e/jcs-vectors.test.ts).
 * Prints each summary, stops the servers (their process groups) and exits 1 on a TCK MUST failure,
 * an ACTS MUST failure no known disagreement explains, a CARD-SIGN failure or a vector failure.
 * A missing ACTS corpus or vector corpus is said and skipped. Full outputs: test-results/tck/.
 * Not part of `npm test`.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { actsRun, unexplainedMust } from "./acts.ts";
import { ACTS_AGENT, actsCallers, actsServerVars } from "./tck-acts.ts";
import { cardSignChecks, signCheckLines, signingKeyVar } from "./tck-cards.ts";
import { actsDir, jcsVectorsDir, kitDir, kitProblem, pins } from "./tck-kit.ts";
import { type KitServer, startKitServer } from "./tck-server.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const kit = kitDir(root);
const runTck = join(kit, "run-tck.sh");
const results = join(root, "test-results", "tck");

/** The TCK server's vars: the conformance agent on (and the default agent, for the v0.3 kit),
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

/** Starts a server, runs `work` on it once it answers, stops it whatever happens. */
async function withServer<T>(vars: string[], log: string, work: (s: KitServer) => Promise<T>) {
  const server = await startKitServer(root, vars, join(results, log));
  const interrupted = () => void server.stop().then(() => process.exit(130));
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    if (!(await server.ready()))
      throw new Error(`a dev server did not start; see test-results/tck/${log}`);
    return await work(server);
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await server.stop();
  }
}

/** CARD-SIGN-001..003 on the conformance agent's cards of `server`; the number failed. */
async function signChecks(server: KitServer, which: string): Promise<number> {
  const checks = await cardSignChecks(
    `${server.base}/agents/${ACTS_AGENT}/.well-known/agent-card.json`,
  );
  const lines = signCheckLines(checks);
  console.log(`\n== CARD-SIGN (${which} server)\n${lines.join("\n")}`);
  writeFileSync(join(results, `card-sign-${which}.log`), `${lines.join("\n")}\n`);
  return checks.filter((c) => !c.passed).length;
}

/** Part 1: both TCK generations on the open server; MUST failures (null: a run broke) and CARD-SIGN failures. */
async function tckKits(signingKey: string) {
  return withServer([...VARS, signingKey], "dev-server.log", async (server) => {
    console.log(`tck: TCK server on ${server.base} (${VARS.join(", ")}, a signing key)`);
    console.log("tck: v1.0 kit (JSON-RPC, HTTP+JSON) on /agents/conformance/ ...");
    const v1 = runKit("v1.0", [`${server.base}/agents/conformance/`]);
    console.log(`\n== A2A TCK v1.0\n${v1.summary}\n`);
    console.log("tck: v0.3 kit on / (the conformance agent is the default agent) ...");
    const v03 = runKit("v0.3", ["--spec", "0.3", `${server.base}/`]);
    console.log(`\n== A2A TCK v0.3\n${v03.summary}`);
    const cardFailures = await signChecks(server, "tck");
    return { kitsFailed: [v1, v03].some((r) => r.mustFailed !== 0), cardFailures };
  });
}

/** Part 2: ACTS on the closed server; unexplained MUST failures and CARD-SIGN failures. */
async function acts(signingKey: string) {
  const corpus = actsDir(root);
  if (!existsSync(corpus)) {
    console.log(
      `\ntck: no ACTS corpus in ${corpus} (npm run tck:setup, or A2A_ACTS_DIR): ACTS not run`,
    );
    return { mustFailed: 0, cardFailures: 0 };
  }
  const adminKey = `tck-admin-${randomUUID()}`;
  return withServer(
    [...actsServerVars(adminKey), signingKey],
    "acts-server.log",
    async (server) => {
      console.log(`\ntck: ACTS server on ${server.base} (closed: AUTH_REQUIRED, a signing key)`);
      const callers = await actsCallers(server.base, adminKey);
      const lines: string[] = [];
      console.log(`\n== ACTS (${corpus})`);
      const run = await actsRun(
        {
          url: `${server.base}/agents/${ACTS_AGENT}/`,
          corpus,
          bindings: ["jsonrpc", "rest", "grpc"],
          token: callers.token,
          variables: callers.variables,
          out: results,
        },
        (line) => {
          lines.push(line);
          console.log(line);
        },
      );
      writeFileSync(join(results, "acts.log"), `${lines.join("\n")}\n`);
      const cardFailures = await signChecks(server, "acts");
      return { mustFailed: unexplainedMust(run).length, cardFailures };
    },
  );
}

/** Part 4: the RFC 8785 vectors; the number failed (0 when the corpus is missing: said). */
function jcsVectors(): number {
  const dir = jcsVectorsDir(root);
  const out = join(results, "jcs-vectors.json");
  const run = spawnSync(
    process.execPath,
    [
      join(root, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "-c",
      "vitest.e2e.config.ts",
      "test/e2e/jcs-vectors.test.ts",
      "--reporter=json",
      `--outputFile=${out}`,
    ],
    { cwd: root, encoding: "utf8", env: { ...process.env, A2A_JCS_VECTORS_DIR: dir } },
  );
  if (!existsSync(out)) {
    console.log(`\n== a2a-jcs-v01\n(no result; vitest said: ${(run.stderr ?? "").slice(-500)})`);
    return 1;
  }
  const report = JSON.parse(readFileSync(out, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
  };
  console.log(
    `\n== a2a-jcs-v01 (${dir})\npassed ${report.numPassedTests} failed ${report.numFailedTests} skipped ${report.numPendingTests}`,
  );
  return report.numFailedTests;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(
      "usage: npm run tck [-- --check]\n\nRuns the official A2A conformance kit (built by npm run tck:setup), the ACTS corpus,\nthe card signature checks and the RFC 8785 vectors against the conformance agent of dev\nservers of their own; --check only checks that the kit is built.\n",
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
  const signingKey = await signingKeyVar();
  const tck = await tckKits(signingKey);
  const actsResult = await acts(signingKey);
  const vectorFailures = jcsVectors();
  const problems = [
    tck.kitsFailed ? "TCK MUST failures (or a broken run)" : "",
    actsResult.mustFailed > 0
      ? `${actsResult.mustFailed} ACTS MUST failures no known disagreement explains`
      : "",
    tck.cardFailures + actsResult.cardFailures > 0 ? "CARD-SIGN failures" : "",
    vectorFailures > 0 ? "RFC 8785 vector failures" : "",
  ].filter(Boolean);
  console.log(
    problems.length > 0 ? `\ntck: ${problems.join("; ")} above` : "\ntck: no MUST failure",
  );
  return problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`tck: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
