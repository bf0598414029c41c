/**
 * The ACTS runner (scripts/acts/) end to end: a corpus of our own in the ACTS format
 * (test/e2e/acts-corpus/: the kinds of case the published corpus has) against the conformance
 * agent on a closed `wrangler dev` server, as `npm run tck` sets it up (tck-acts.ts: the runner's
 * user, a user of another agent, another user's task), over JSON-RPC and HTTP+JSON. Every case
 * meant to pass passes or is skipped for its stated reason (gRPC, a client test, a precondition
 * the card does not meet); every case meant to fail fails at the step and for the reason it was
 * written for. The full corpus runs under `npm run tck`.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestResult } from "../../scripts/acts/run-test.ts";
import type { ActsRun } from "../../scripts/acts/runner.ts";
import { actsRun } from "../../scripts/acts.ts";
import { ACTS_AGENT, actsCallers, actsServerVars } from "../../scripts/tck-acts.ts";
import { type DevServer, freePort, startDevServer } from "./dev-server.ts";
import { ROOT } from "./processes.ts";

const ADMIN_KEY = `e2e-acts-admin-${randomUUID()}`;
let server: DevServer;
let run: ActsRun;
const printed: string[] = [];

/** The vars of tck-acts.ts (`NAME:value`) as startDevServer takes them. */
const vars = Object.fromEntries(
  actsServerVars(ADMIN_KEY).map((v) => [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)]),
);

beforeAll(async () => {
  server = await startDevServer({ port: await freePort(), vars });
  const callers = await actsCallers(server.url, ADMIN_KEY);
  run = await actsRun(
    {
      url: `${server.url}/agents/${ACTS_AGENT}/`,
      corpus: join(ROOT, "test", "e2e", "acts-corpus"),
      bindings: ["jsonrpc", "rest", "grpc"],
      token: callers.token,
      variables: callers.variables,
    },
    (line) => printed.push(line),
  );
});

afterAll(async () => {
  await server?.stop();
});

const of = (file: string, binding: string) =>
  run.results.filter((r) => r.file === file && r.binding === binding);
const byId = (results: TestResult[]) => Object.fromEntries(results.map((r) => [r.id, r]));

describe("the ACTS runner against the conformance agent", () => {
  it.each(["jsonrpc", "rest"])(
    "passes every case meant to pass over %s, or says why it skips",
    (binding) => {
      const results = byId(of("passing.acts.yaml", binding));
      const notPassed = Object.values(results).filter(
        (r) => r.result !== "pass" && r.result !== "skip",
      );
      expect(notPassed.map((r) => `${r.id}: ${r.failure?.message}`)).toEqual([]);
      expect(results["SUB-SKIP-GRPC"]?.skipReason).toMatch(/gRPC/);
      expect(results["SUB-SKIP-CLIENT"]?.skipReason).toMatch(/client test/);
      expect(results["SUB-SKIP-PRECONDITION"]?.skipReason).toMatch(/streaming = false/);
      // A raw case of the other binding is skipped, not failed.
      const other = binding === "jsonrpc" ? "SUB-RAW-REST-001" : "SUB-RAW-JSONRPC-001";
      expect(results[other]?.result).toBe("skip");
      const ran = Object.values(results)
        .filter((r) => r.result === "pass")
        .map((r) => r.id);
      expect(ran).toEqual(
        expect.arrayContaining([
          "SUB-CARD-001",
          "SUB-SEND-001",
          "SUB-MULTI-001",
          "SUB-CANCEL-001",
          "SUB-POLL-001",
          "SUB-STREAM-001",
          "SUB-SUBSCRIBE-001",
          "SUB-ART-001",
          "SUB-ERR-001",
          "SUB-PUSH-001",
        ]),
      );
    },
  );

  it("refuses the extended card without credentials and a user of other agents (HTTP+JSON)", () => {
    const results = byId(of("passing.acts.yaml", "rest"));
    expect(results["SUB-EXTCARD-001"]?.result).toBe("pass");
    expect(results["SUB-AUTH-001"]?.result).toBe("pass");
  });

  it.each(["jsonrpc", "rest"])(
    "fails every case meant to fail over %s, at its step, for its reason",
    (binding) => {
      const results = byId(of("failing.acts.yaml", binding));
      const why = (id: string) => [
        results[id]?.result,
        results[id]?.failure?.stepId,
        results[id]?.failure?.message,
      ];
      expect(why("FAIL-STATE")).toEqual([
        "fail",
        "send",
        expect.stringMatching(/TASK_STATE_FAILED/),
      ]);
      expect(why("FAIL-ERROR-TYPE")).toEqual([
        "fail",
        "get",
        expect.stringMatching(/TaskNotCancelableError", got TaskNotFoundError/),
      ]);
      expect(why("FAIL-STREAM")).toEqual([
        "fail",
        "stream",
        expect.stringMatching(/at least 10 events/),
      ]);
      expect(why("FAIL-CAPTURE")).toEqual([
        "fail",
        "send",
        expect.stringMatching(/capture taskId/),
      ]);
      expect(why("FAIL-REPEAT")).toEqual([
        "fail",
        "poll",
        expect.stringMatching(/after 2 attempts/),
      ]);
    },
  );

  it("reports gRPC as skipped and prints a table of the results", () => {
    expect(run.results.filter((r) => r.binding === "grpc").every((r) => r.result === "skip")).toBe(
      true,
    );
    const table = printed.find((line) => line.includes("| file | tests |")) ?? "";
    expect(table).toMatch(/\| passing\.acts\.yaml \| 17 \|/);
    expect(printed.some((line) => line.startsWith("MUST jsonrpc"))).toBe(true);
  });
});
