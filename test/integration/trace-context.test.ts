/**
 * W3C trace context: `traceparent` and `tracestate` parsed strictly; a valid one received is
 * continued (its trace id becomes the task's, its span the task span's parent), else a trace
 * starts (a webhook delivery's too); and it goes out on every hop: a remote sub-agent's task continues the `task` tool
 * call's span, push notifications come from the task's span, web_fetch targets get none unless
 * WEB_FETCH_TRACEPARENT.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import {
  MAX_TRACESTATE,
  parseTraceparent,
  parseTracestate,
  spanIdFor,
  TASK_SPAN_KEY,
  toolSpanKey,
} from "../../src/platform/trace-context.ts";
import { webFetchTool } from "../../src/tools/web/web-fetch.ts";
import { withSpan } from "../../src/trace/current-span.ts";
import { signGithub } from "../../src/triggers/signatures.ts";
import { fetchWorker, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { type Otlp, type OtlpSpan, spansOf } from "../helpers/otlp.ts";
import { toolContext } from "../helpers/tool-context.ts";
import { taskInput, textToolTurn as tool } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";
import { deliver, githubPushHook, withWebhooks } from "../helpers/webhooks.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

describe("traceparent and tracestate parsing", () => {
  it("takes a valid traceparent and refuses every malformed one", () => {
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-01`)).toEqual({
      traceId: TRACE,
      parentSpanId: PARENT,
    });
    // A later version may add fields; version 00 may not.
    expect(parseTraceparent(`01-${TRACE}-${PARENT}-01-extra`)?.traceId).toBe(TRACE);
    for (const bad of [
      `00-${TRACE.toUpperCase()}-${PARENT}-01`,
      `ff-${TRACE}-${PARENT}-01`,
      `00-${"0".repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `00-${TRACE}-${PARENT}-01-extra`,
      `00-${TRACE}-${PARENT}`,
      "garbage",
      "",
      undefined,
    ])
      expect(parseTraceparent(bad)).toBeNull();
  });

  it("keeps a well-formed tracestate and drops a bad or oversized one", () => {
    expect(parseTracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE")).toBe(
      "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
    );
    expect(parseTracestate("tenant@vendor=v1")).toBe("tenant@vendor=v1");
    for (const bad of ["=novalue", "UPPER=1", "a=1,a=2", "a=x=y", "no-equals"])
      expect(parseTracestate(bad)).toBeNull();
    expect(parseTracestate(`k=${"v".repeat(MAX_TRACESTATE)}`)).toBeNull();
  });

  it("derives span ids from the task and the span's key, the same every time", async () => {
    const a = await spanIdFor("task-1", TASK_SPAN_KEY);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(await spanIdFor("task-1", TASK_SPAN_KEY)).toBe(a);
    expect(await spanIdFor("task-1", toolSpanKey("call-1"))).not.toBe(a);
    expect(await spanIdFor("task-2", TASK_SPAN_KEY)).not.toBe(a);
  });
});

const AS_ADMIN = { Authorization: `Bearer ${env.ADMIN_API_KEY}` };

async function traceSpans(taskId: string, headers: Record<string, string>): Promise<OtlpSpan[]> {
  const response = await fetchWorker(`/api/tasks/${taskId}/trace`, { headers });
  expect(response.status).toBe(200);
  return spansOf((await response.json()) as Otlp);
}

const send = async (params: unknown, headers: Record<string, string>) =>
  (await rpc<{ task: WireTask }>("SendMessage", params, { headers })).result?.task as WireTask;

describe("trace context on every hop", () => {
  it("continues a received trace: the task's trace id and its span's parent", async () => {
    const s = await scenario([{ text: "ok" }]);
    const task = await send(
      { message: userMessage(`hi ${s.marker}`) },
      { ...AS_ADMIN, traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: "vendor=abc" },
    );
    expect(task.metadata).toMatchObject({
      traceId: TRACE,
      parentSpanId: PARENT,
      traceState: "vendor=abc",
    });
    const root = (await traceSpans(task.id, AS_ADMIN)).find((x) =>
      x.name.startsWith("invoke_agent"),
    );
    expect(root).toMatchObject({ traceId: TRACE, parentSpanId: PARENT });
    expect(root?.spanId).toBe(await spanIdFor(task.id, TASK_SPAN_KEY));
  });

  it("starts a new trace for an invalid traceparent (and drops its tracestate)", async () => {
    const s = await scenario([{ text: "ok" }]);
    const task = await send(
      { message: userMessage(`hi ${s.marker}`) },
      { ...AS_ADMIN, traceparent: `00-${TRACE.toUpperCase()}-${PARENT}-01`, tracestate: "a=1" },
    );
    expect(task.metadata?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(task.metadata?.traceId).not.toBe(TRACE);
    expect(task.metadata?.parentSpanId).toBeUndefined();
    expect(task.metadata?.traceState).toBeUndefined();
  });

  it("a remote sub-agent's task continues the task tool call's span", async () => {
    const remote = await scenario([{ text: "Remote done." }]);
    const parent = await scenario([
      tool("task", taskInput("remote-researcher", "remote work", `Work. ${remote.marker}`)),
      { text: "All done." },
    ]);
    const task = await send(
      { message: userMessage(`delegate ${parent.marker}`) },
      { ...AS_ADMIN, traceparent: `00-${TRACE}-${PARENT}-01` },
    );
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const spans = await traceSpans(task.id, AS_ADMIN);
    const call = spans.find((x) => x.name === "execute_tool task") as OtlpSpan;
    // The remote side's task (the same Worker through a service binding) names that span.
    const started = (task.history ?? [])
      .map(
        (m) => (m.parts[1]?.data as { detail?: { state?: string; childTaskId?: string } })?.detail,
      )
      .find((d) => d?.state === "started");
    const child = (
      await rpc<WireTask>("GetTask", { id: started?.childTaskId }, { headers: AS_ADMIN })
    ).result;
    expect(child?.metadata).toMatchObject({ traceId: TRACE, parentSpanId: call.spanId });
  });

  it("push notifications carry the task's span; web_fetch targets get none unless configured", async () => {
    const hook = `trace-${crypto.randomUUID().slice(0, 8)}`;
    const s = await scenario([{ text: "ok" }]);
    const task = await send(
      {
        message: userMessage(`push ${s.marker}`),
        configuration: {
          taskPushNotificationConfig: { url: `${env.FAKE_PUSH_URL}/hooks/${hook}` },
        },
      },
      { ...AS_ADMIN, traceparent: `00-${TRACE}-${PARENT}-01` },
    );
    const got = await until(
      async () =>
        (await (await fetch(`${env.FAKE_PUSH_URL}/received/${hook}`)).json()) as Array<{
          headers: Record<string, string>;
        }>,
      (r) => r.length > 0,
    );
    const taskSpan = await spanIdFor(task.id, TASK_SPAN_KEY);
    expect(got[0]?.headers.traceparent).toBe(`00-${TRACE}-${taskSpan}-01`);

    const seen: Array<string | null> = [];
    const capture: typeof fetch = async (_input, init) => {
      seen.push(new Headers(init?.headers).get("traceparent"));
      return new Response("hello", { headers: { "content-type": "text/plain" } });
    };
    const span = { traceId: TRACE, spanId: PARENT };
    const config = loadConfig(env);
    await withSpan(span, () =>
      webFetchTool.run({ url: "https://example.com/" }, toolContext({ fetch: capture })),
    );
    const opted = { ...config, trace: { ...config.trace, webFetchTraceparent: true } };
    await withSpan(span, () =>
      webFetchTool.run(
        { url: "https://example.com/" },
        toolContext({ fetch: capture, config: opted }),
      ),
    );
    expect(seen).toEqual([null, `00-${TRACE}-${PARENT}-01`]);
  });

  it("a webhook delivery's traceparent is continued by the task it starts", async () => {
    const owner = await newUser();
    const hook = `trace-${crypto.randomUUID().slice(0, 6)}`;
    const bindings = withWebhooks("whsec-trace", {
      [hook]: githubPushHook(owner.id, "[[reply:noted]] {{$event}}"),
    });
    const body = JSON.stringify({ ref: "refs/heads/main" });
    const response = await deliver(bindings, hook, body, {
      "X-GitHub-Event": "push",
      "X-GitHub-Delivery": crypto.randomUUID(),
      "X-Hub-Signature-256": await signGithub("whsec-trace", body),
      traceparent: `00-${TRACE}-${PARENT}-01`,
    });
    expect(response.status).toBe(202);
    const { taskId } = (await response.json()) as { taskId: string };
    const task = (await rpcAs<WireTask>(owner.token, "GetTask", { id: taskId })).body.result;
    expect(task?.metadata).toMatchObject({ traceId: TRACE, parentSpanId: PARENT });
  });
});
