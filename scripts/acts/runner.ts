/**
 * Runs an ACTS corpus against one agent on each binding asked for: reads the agent's card once
 * (preconditions), then every test of every file on every binding, several at a time (tests are
 * independent: acts-specification.md §4), and gives the results in corpus order. gRPC is a binding
 * of ACTS this runner does not speak: its tests are reported skipped with that reason. The
 * runner's variables: `SUT_BASE_URL` (the agent's HTTP+JSON base URL) and those it is given (a
 * webhook receiver of its own, say). Node only.
 */
import type { CorpusFile } from "./corpus.ts";
import { isMap } from "./json.ts";
import type { Binding, Suite, Test } from "./model.ts";
import { type RunContext, runTest, type TestResult } from "./run-test.ts";
import { restBase, type Target } from "./transport.ts";

/** What to run, where, and how. */
export interface RunnerOptions {
  corpus: CorpusFile[];
  /** The agent's JSON-RPC endpoint (its base URL, with the trailing slash). */
  endpoint: string;
  bindings: readonly Binding[];
  /** The bearer token the runner authenticates with. */
  token?: string;
  /** The SUT behaviours (message prefixes) the agent implements. */
  behaviours: readonly string[];
  variables?: Record<string, string>;
  /** Tests run at once (default 8). */
  concurrency?: number;
  /** How long a stream is read before the runner stops waiting for its end (default 30 s). */
  streamTimeoutMs?: number;
  /** Called with each result as it comes. */
  onResult?: (result: TestResult) => void;
}

/** A run's results (corpus order: file, suite, test, binding) and how long it took. */
export interface ActsRun {
  results: TestResult[];
  durationMs: number;
}

/** The SUT's public card, as the runner reads it for preconditions. */
async function readCard(target: Target): Promise<Record<string, unknown>> {
  const response = await fetch(`${restBase(target)}/.well-known/agent-card.json`, {
    headers: {
      "A2A-Version": target.version,
      ...(target.token ? { Authorization: `Bearer ${target.token}` } : {}),
    },
  });
  const card: unknown = await response.json();
  if (!response.ok || !isMap(card))
    throw new Error(`the agent card answered HTTP ${response.status}`);
  return card;
}

/** Runs `jobs` with at most `limit` at once; results in the jobs' order. */
async function pool<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      const job = jobs[i];
      if (job) results[i] = await job();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

const GRPC_SKIP = "gRPC: this runner speaks JSON-RPC and HTTP+JSON (gRPC is out of scope)";

/** Runs the corpus. */
export async function runActs(options: RunnerOptions): Promise<ActsRun> {
  const started = Date.now();
  const version = options.corpus[0]?.specVersion ?? "1.0";
  const target: Target = {
    endpoint: options.endpoint,
    version,
    ...(options.token ? { token: options.token } : {}),
  };
  const card = await readCard(target);
  const context = (binding: "jsonrpc" | "rest"): RunContext => ({
    binding,
    target,
    card,
    behaviours: new Set(options.behaviours),
    variables: { SUT_BASE_URL: restBase(target), ...options.variables },
    streamTimeoutMs: options.streamTimeoutMs ?? 30_000,
  });
  const jobs: Array<() => Promise<TestResult>> = [];
  const each = (fn: (file: CorpusFile, suite: Suite, test: Test) => void) => {
    for (const file of options.corpus)
      for (const suite of file.suites) for (const test of suite.tests) fn(file, suite, test);
  };
  each((file, suite, test) => {
    for (const binding of options.bindings)
      jobs.push(async () => {
        const result: TestResult =
          binding === "grpc"
            ? {
                id: test.id,
                name: test.name,
                level: test.level,
                file: file.file,
                suite: suite.id,
                binding,
                result: "skip",
                durationMs: 0,
                skipReason: GRPC_SKIP,
              }
            : await runTest(test, suite, file, context(binding));
        options.onResult?.(result);
        return result;
      });
  });
  const results = await pool(jobs, options.concurrency ?? 8);
  return { results, durationMs: Date.now() - started };
}
