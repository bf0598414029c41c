/**
 * `node scripts/acts.ts [options] <agent URL>`: runs the ACTS corpus (the A2A Conformance Test
 * Specification's tests, read as data: scripts/acts/) against one agent of a running server, on
 * JSON-RPC and HTTP+JSON (gRPC tests are reported skipped), with a webhook receiver of its own on
 * 127.0.0.1 for push configs. Prints each failure, a table of passed / failed / skipped per file
 * and binding, and the counts per level; `--out DIR` also writes the JSON report of each binding.
 * Exits 1 when a MUST test fails or errs that the known disagreements (acts/known.ts) do not
 * explain. `npm run tck` runs it the same way (scripts/tck.ts). Node only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ACTS_BEHAVIOURS } from "../src/programs/conformance-scenarios.ts";
import { readCorpus } from "./acts/corpus.ts";
import { knownDisagreement } from "./acts/known.ts";
import { BINDINGS, type Binding } from "./acts/model.ts";
import { actsReport, failureLines, levelLines, resultTable } from "./acts/report.ts";
import { type ActsRun, runActs } from "./acts/runner.ts";
import { startWebhookReceiver } from "./acts/webhook.ts";
import { actsDir } from "./tck-kit.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const USAGE = `usage: node scripts/acts.ts [options] <agent URL>

Runs the ACTS corpus against the agent at <agent URL> (its JSON-RPC endpoint, e.g.
http://127.0.0.1:8787/agents/conformance/).

options:
  --corpus <dir>      the ACTS tests (default $A2A_ACTS_DIR, else .tck/acts from npm run tck:setup)
  --binding <list>    jsonrpc,rest,grpc (default all three; gRPC tests are reported skipped)
  --token <token>     bearer token for the agent (default $A2A_ACTS_TOKEN)
  --only <ids>        run only these test ids (comma-separated)
  --out <dir>         write acts-report-<binding>.json there
  -h, --help          this text
`;

/** The options of one ACTS run, as scripts/tck.ts passes them too. */
export interface ActsCommand {
  url: string;
  corpus: string;
  bindings: Binding[];
  token?: string;
  only?: string[];
  out?: string;
  /** More runner variables (ACTS's `insufficientAuthToken`, `otherUserTaskId`). */
  variables?: Record<string, string>;
}

/** Whether a result is a MUST failure that no known disagreement explains. */
export const unexplainedMust = (run: ActsRun) =>
  run.results.filter(
    (r) =>
      r.level === "must" && (r.result === "fail" || r.result === "error") && !knownDisagreement(r),
  );

/** Runs ACTS as `command` says, prints what it found, and returns the run. */
export async function actsRun(command: ActsCommand, print = console.log): Promise<ActsRun> {
  const corpus = readCorpus(command.corpus).map((file) => ({
    ...file,
    suites: file.suites
      .map((s) => ({
        ...s,
        tests: s.tests.filter((t) => !command.only || command.only.includes(t.id)),
      }))
      .filter((s) => s.tests.length > 0),
  }));
  const receiver = await startWebhookReceiver();
  try {
    const run = await runActs({
      corpus,
      endpoint: command.url.endsWith("/") ? command.url : `${command.url}/`,
      bindings: command.bindings,
      ...(command.token ? { token: command.token } : {}),
      behaviours: ACTS_BEHAVIOURS,
      variables: { ...command.variables, webhookUrl: receiver.url },
    });
    for (const line of failureLines(run.results, knownDisagreement)) print(`  ${line}`);
    print(`\n${resultTable(run.results, command.bindings)}\n`);
    for (const line of levelLines(run.results)) print(line);
    print(`duration ${(run.durationMs / 1000).toFixed(1)} s`);
    if (command.out) {
      mkdirSync(command.out, { recursive: true });
      for (const binding of command.bindings)
        writeFileSync(
          join(command.out, `acts-report-${binding}.json`),
          `${JSON.stringify(actsReport(run.results, binding, run.durationMs), null, 2)}\n`,
        );
    }
    return run;
  } finally {
    await receiver.close();
  }
}

/** `--binding`'s list, each a binding of ACTS; throws naming one that is not. */
function bindingsOf(list: string): Binding[] {
  const isBinding = (b: string): b is Binding => (BINDINGS as readonly string[]).includes(b);
  const names = list.split(",").map((b) => b.trim());
  const wrong = names.find((b) => !isBinding(b));
  if (wrong !== undefined) throw new Error(`--binding: ${wrong} is not jsonrpc, rest or grpc`);
  return names.filter(isBinding);
}

function commandLine(): ActsCommand | null {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      corpus: { type: "string" },
      binding: { type: "string" },
      token: { type: "string" },
      only: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const url = positionals[0];
  if (values.help || !url) return null;
  const token = values.token ?? process.env.A2A_ACTS_TOKEN;
  return {
    url,
    corpus: values.corpus ?? actsDir(root),
    bindings: bindingsOf(values.binding ?? "jsonrpc,rest,grpc"),
    ...(token ? { token } : {}),
    ...(values.only ? { only: values.only.split(",") } : {}),
    ...(values.out ? { out: values.out } : {}),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let command: ActsCommand | null = null;
  try {
    command = commandLine();
  } catch (error) {
    process.stderr.write(
      `acts: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`,
    );
    process.exit(2);
  }
  if (!command) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  actsRun(command).then(
    (run) => process.exit(unexplainedMust(run).length > 0 ? 1 : 0),
    (error: unknown) => {
      console.error(`acts: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
