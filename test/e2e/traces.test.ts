/**
 * Traces end to end: two `wrangler dev` instances export OTLP/HTTP (JSON) to a receiver
 * (test/fake-collector) on 127.0.0.1. A task on B delegates to a local sub-agent (writer) and to
 * a remote one (researcher, on A): the receiver gets one trace id across both instances, every
 * span's parent, model spans whose tokens equal the tasks' usage, and a hook intervention as an
 * event. A exports to the generic endpoint (+ /v1/traces); B, which also has the signal-specific
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, posts to that URL as given, under its OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES. With the receiver stopped, the same task completes in the same number
 * of steps and neither instance logs per span.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { type FakeCollector, startFakeCollector } from "../fake-collector/server.ts";
import { attr, type OtlpSpan } from "../helpers/otlp.ts";
import { taskInput, toolTurn as tool } from "../helpers/turns.ts";
import { asTask, bearerClients, stateOf, textRequest } from "./client.ts";
import type { DevServer } from "./dev-server.ts";
import { type DistributedPair, startDistributedPair } from "./distributed-pair.ts";
import { addScenario } from "./scenarios.ts";

const SHARED_KEY = "e2e-traces-key";
/** B's signal-specific traces endpoint's path: not /v1/traces, so "as given" shows. */
const B_TRACES_PATH = "/b/otlp-traces";
let pair: DistributedPair;
let a: DevServer;
let b: DevServer;
let receiver: FakeCollector;

const scenario = (turns: Turn[]) => addScenario(pair.harness.fake.store, turns);

const client = () => bearerClients(SHARED_KEY).createFromUrl(b.url);

/** The delegating task on B: a remote researcher (on A), a local writer, a file, the finish. */
async function runTree() {
  const usage = { input_tokens: 90, output_tokens: 12, cache_read_input_tokens: 7 };
  const researcher = scenario([{ text: "Remote facts.", usage }]);
  const writer = scenario([{ text: "Local draft.", usage }]);
  const path = `trace-${crypto.randomUUID().slice(0, 8)}.md`;
  const parent = scenario([
    {
      ...tool("task", taskInput("researcher", "facts", `Find. ${researcher.marker}`)),
      usage,
    },
    {
      ...tool("task", taskInput("writer", "draft", `Draft. ${writer.marker}`)),
      usage,
    },
    { ...tool("write_file", { path, content: "draft" }), usage },
    { text: "Done.", usage },
    { ...tool("read_file", { path }), usage },
    { text: "Verified.", usage },
  ]);
  const task = asTask(await (await client()).sendMessage(textRequest(`go ${parent.marker}`)));
  return task;
}

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `condition not met in 150 s; received ${receiver.spans.map((x) => x.name).join(", ")}; A said:\n${a.output().slice(-3000)}\nB said:\n${b.output().slice(-3000)}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  // The Worker's warnings reach output() (dev-server.ts keeps wrangler at errors by default): the
  // second test reads the one line a failed export writes.
  process.env.WRANGLER_LOG = "warn";
  receiver = await startFakeCollector(0, ["/v1/traces", B_TRACES_PATH]);
  pair = await startDistributedPair(
    {
      MODEL_IDLE_TIMEOUT_MS: "5000",
      MODEL_RETRY_BASE_MS: "20",
      A2A_API_KEY: SHARED_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=e2e%20secret",
    },
    {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}${B_TRACES_PATH}`,
      OTEL_SERVICE_NAME: "harness-b",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=not-this,deployment.environment=e2e,team=a%20b",
    },
  );
  ({ a, b } = pair);
});

afterAll(async () => {
  await pair?.stop();
  await receiver?.close();
});

describe("OTLP export across two instances", () => {
  let steps = 0;

  it("sends one trace with every parent, usage on model spans and a hook event", async () => {
    const task = await runTree();
    expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
    const traceId = task.metadata?.traceId as string;
    const usage = task.metadata?.usage as Record<string, number>;
    steps = usage.modelCalls as number;
    // Every task exports when it ends: the root, the local writer (B) and the remote researcher (A).
    const agentsDone = () =>
      receiver.spans.filter((s) => s.traceId === traceId && s.name.startsWith("invoke_agent"));
    await until(agentsDone, (s) => s.length >= 3);
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    expect(new Set(receiver.spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
    expect(
      agentsDone()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["invoke_agent assistant", "invoke_agent researcher", "invoke_agent writer"]);
    // Every parent arrived; the root task is the only span without one.
    const ids = new Set(spans.map((s) => s.spanId));
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual([
      "invoke_agent assistant",
    ]);
    for (const s of spans) if (s.parentSpanId) expect(ids.has(s.parentSpanId), s.name).toBe(true);
    // The remote task's span continues the `task` tool call that reached it, across instances.
    const remote = spans.find((s) => s.name === "invoke_agent researcher") as OtlpSpan;
    expect(spans.find((s) => s.spanId === remote.parentSpanId)?.name).toBe("execute_tool task");

    // Model spans: tokens equal the usage the tasks report (the root counts its local sub-agent;
    // the remote one reports its own on its task span).
    const models = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat");
    const sum = (key: string) => models.reduce((n, s) => n + Number(attr(s, key) ?? 0), 0);
    const remoteInput = Number(attr(remote, "a2a.task.usage.inputTokens"));
    const remoteOutput = Number(attr(remote, "a2a.task.usage.outputTokens"));
    expect(remoteInput).toBeGreaterThan(0);
    expect(sum("gen_ai.usage.input_tokens")).toBe((usage.inputTokens ?? 0) + remoteInput);
    expect(sum("gen_ai.usage.output_tokens")).toBe((usage.outputTokens ?? 0) + remoteOutput);
    expect(sum("gen_ai.usage.cache_read.input_tokens")).toBe(
      (usage.cacheReadTokens ?? 0) + Number(attr(remote, "a2a.task.usage.cacheReadTokens")),
    );
    // The verification hook's intervention is an event on the root's step.
    expect(spans.flatMap((s) => s.events.map((e) => e.name))).toContain("harness.verification");
    // The collector's headers came from OTEL_EXPORTER_OTLP_HEADERS.
    expect(receiver.headers.every((h) => h["x-collector-key"] === "e2e secret")).toBe(true);
    // A (the researcher) posted to the generic endpoint + /v1/traces under the default service;
    // B (the root and the writer) to its traces endpoint as given, under its own resource.
    const byPath = (path: string) =>
      receiver.resources.filter((_, i) => receiver.paths[i] === path);
    expect(byPath("/v1/traces").map((r) => r["service.name"])).toContain("a2a-edge-harness");
    expect(byPath("/v1/traces").every((r) => r["service.name"] === "a2a-edge-harness")).toBe(true);
    const fromB = byPath(B_TRACES_PATH);
    expect(fromB.length).toBeGreaterThan(0);
    for (const resource of fromB)
      expect(resource).toMatchObject({
        "service.name": "harness-b",
        "deployment.environment": "e2e",
        team: "a b",
      });
  });

  it("with the receiver down, the task completes in the same steps and nothing is logged per span", async () => {
    expect(steps).toBeGreaterThan(0);
    const exported = receiver.spans.length;
    await receiver.close();
    const task = await runTree();
    expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
    expect((task.metadata?.usage as Record<string, number> | undefined)?.modelCalls).toBe(steps);
    // The root's export (one POST when it ends) failed: said once, not per span.
    await until(
      () => b.output(),
      (out) => out.includes("trace export failed"),
    );
    for (const server of [a, b]) {
      const failures = server
        .output()
        .split("\n")
        .filter((l) => l.includes("trace export failed"));
      // At most one line a minute per isolate, never one per span.
      expect(failures.length).toBeLessThanOrEqual(3);
      expect(failures.length).toBeLessThan(exported);
    }
    expect(receiver.spans.length).toBe(exported);
  });
});
