/**
 * The conformance agent (agents/conformance, src/programs/conformance.ts) through the whole
 * engine, as the official A2A conformance kit drives it: artifacts of every part kind, chunked
 * streams, a Message instead of a Task, input-required and its resumption, rejection, reused
 * messageIds, a long-running task; over JSON-RPC v1.0, HTTP+JSON and v0.3.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker.ts";
import type { RpcResponse, WireTask } from "../helpers/a2a.ts";
import { sseEvents } from "../helpers/sse.ts";
import { until } from "../helpers/until.ts";

const BASE = "/agents/conformance/";

/** A request to the Worker with the conformance agent switched on. */
async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  if (typeof init.body === "string" && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  const response = await worker.fetch(
    new Request(`http://harness.test${path}`, { ...init, headers }),
    { ...env, CONFORMANCE_AGENT: "true" },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

/** A v1.0 JSON-RPC call to the conformance agent (or the agent at `path`). */
const post = (method: string, params: unknown, headers: Record<string, string> = {}, path = BASE) =>
  call(path, {
    method: "POST",
    headers: { "A2A-Version": "1.0", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

async function rpc<T = Record<string, unknown>>(method: string, params: unknown) {
  return (await (await post(method, params)).json()) as RpcResponse<T>;
}

/** A message whose messageId starts with the scenario prefix, as the kit sends them. */
const message = (prefix: string, extra: Record<string, unknown> = {}) => ({
  messageId: `${prefix}-${crypto.randomUUID().slice(0, 8)}`,
  role: "ROLE_USER",
  parts: [{ text: "TCK prerequisite task creation" }],
  ...extra,
});

async function send(prefix: string, extra: Record<string, unknown> = {}): Promise<WireTask> {
  const sent = await rpc<{ task: WireTask }>("SendMessage", { message: message(prefix, extra) });
  expect(sent.error).toBeUndefined();
  return sent.result?.task as WireTask;
}

type Stream = Array<Record<string, Record<string, unknown>>>;

async function stream(prefix: string): Promise<Stream> {
  const events: Stream = [];
  for await (const e of sseEvents(await post("SendStreamingMessage", { message: message(prefix) })))
    events.push((JSON.parse(e.data) as RpcResponse).result as Stream[number]);
  return events;
}

describe("the conformance agent through the engine", () => {
  it("completes with artifacts of every part kind, kept on the task", async () => {
    const text = await send("tck-artifact-text");
    expect(text.status.state).toBe("TASK_STATE_COMPLETED");
    expect(text.artifacts?.[0]?.parts).toEqual([{ text: "Generated text content" }]);
    const file = await send("tck-artifact-file");
    expect(file.artifacts?.[0]?.parts).toEqual([
      { raw: "dGNr", filename: "output.txt", mediaType: "text/plain" },
    ]);
    const url = await send("tck-artifact-file-url");
    expect(url.artifacts?.[0]?.parts[0]).toMatchObject({ url: "https://example.com/output.txt" });
    const data = await send("tck-artifact-data");
    expect(data.artifacts?.[0]?.parts).toEqual([{ data: { key: "value", count: 42 } }]);
    const again = await rpc<WireTask>("GetTask", { id: data.id });
    expect(again.result?.artifacts).toEqual(data.artifacts);
    const done = await send("tck-complete-task");
    expect(done.status.message?.parts).toEqual([{ text: "Hello from TCK" }]);
    expect(done.history?.map((m) => m.role)).toEqual(["ROLE_USER", "ROLE_AGENT"]);
  });

  it("streams the Task, working, each chunk (the second appended) and the final status", async () => {
    const events = await stream("tck-stream-artifact-chunked");
    expect(events.map((e) => Object.keys(e)[0])).toEqual([
      "task",
      "statusUpdate",
      "artifactUpdate",
      "artifactUpdate",
      "statusUpdate",
    ]);
    expect(events[1]?.statusUpdate?.status).toMatchObject({ state: "TASK_STATE_WORKING" });
    expect(events[2]?.artifactUpdate).toMatchObject({
      artifact: { parts: [{ text: "chunk-1 " }] },
    });
    expect(events[2]?.artifactUpdate).not.toHaveProperty("append");
    expect(events[3]?.artifactUpdate).toMatchObject({
      artifact: { parts: [{ text: "chunk-2" }] },
      append: true,
      lastChunk: true,
    });
    expect(events[4]?.statusUpdate?.status).toMatchObject({ state: "TASK_STATE_COMPLETED" });
    const id = String(events[0]?.task?.id);
    const task = (await rpc<WireTask>("GetTask", { id })).result as WireTask;
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: "chunk-1 " }, { text: "chunk-2" }]);
  });

  it("answers with a Message instead of a Task, on every binding", async () => {
    const sent = await rpc<{ message: Record<string, unknown> }>("SendMessage", {
      message: message("tck-message-response"),
    });
    expect(sent.result).not.toHaveProperty("task");
    expect(sent.result?.message).toMatchObject({
      role: "ROLE_AGENT",
      parts: [{ text: "Direct message response" }],
      contextId: expect.any(String),
    });
    const streamed = await stream("tck-message-response");
    expect(streamed).toEqual([{ message: expect.objectContaining({ role: "ROLE_AGENT" }) }]);
    const rest = await call(`${BASE}message:send`, {
      method: "POST",
      headers: { "A2A-Version": "1.0" },
      body: JSON.stringify({ message: message("tck-message-response") }),
    });
    expect(((await rest.json()) as { message: { parts: unknown[] } }).message.parts).toEqual([
      { text: "Direct message response" },
    ]);
    const legacy = (await (
      await call(BASE, {
        method: "POST",
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "message/send",
          params: {
            message: {
              kind: "message",
              messageId: "tck-message-response-v03",
              role: "user",
              parts: [{ kind: "text", text: "hi" }],
            },
          },
        }),
      })
    ).json()) as RpcResponse;
    expect(legacy.result).toMatchObject({ kind: "message", role: "agent" });
  });

  it("asks for input and resumes on the next message, history in order", async () => {
    const waiting = await send("tck-input-required");
    expect(waiting.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(waiting.status.message?.parts).toEqual([{ text: "Input required." }]);
    // The kit reuses one messageId for every message of a scenario: each is applied.
    const again = message("tck-input-required", { taskId: waiting.id });
    for (const text of ["TCK history message 1", "TCK history message 2"]) {
      const reply = await rpc<{ task: WireTask }>("SendMessage", {
        message: { ...again, parts: [{ text }] },
      });
      expect(reply.result?.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    }
    const done = await rpc<{ task: WireTask }>("SendMessage", {
      message: message("tck-complete-task", { taskId: waiting.id }),
    });
    expect(done.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    const history = (await rpc<WireTask>("GetTask", { id: waiting.id, historyLength: 10 })).result
      ?.history;
    const userTexts = history?.filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text);
    expect(userTexts).toEqual([
      "TCK prerequisite task creation",
      "TCK history message 1",
      "TCK history message 2",
      "TCK prerequisite task creation",
    ]);
    const last = await rpc<WireTask>("GetTask", { id: waiting.id, historyLength: 1 });
    expect(last.result?.history?.[0]?.parts).toEqual([{ text: "Hello from TCK" }]);
  });

  it("follows ACTS behaviours by the first part's text: a multi-turn talk, auth-required, failure", async () => {
    const actsMessage = (text: string, extra: Record<string, unknown> = {}) => ({
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [{ text }],
      ...extra,
    });
    const sendActs = async (text: string, extra: Record<string, unknown> = {}) =>
      (await rpc<{ task: WireTask }>("SendMessage", { message: actsMessage(text, extra) })).result
        ?.task as WireTask;
    const talk = await sendActs("tck-multi-turn start");
    expect(talk.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const more = await sendActs("here is more input", { taskId: talk.id });
    expect([more.id, more.status.state]).toEqual([talk.id, "TASK_STATE_INPUT_REQUIRED"]);
    expect((await sendActs("done", { taskId: talk.id })).status.state).toBe("TASK_STATE_COMPLETED");

    const auth = await sendActs("tck-auth-required now");
    expect(auth.status.state).toBe("TASK_STATE_AUTH_REQUIRED");
    expect(auth.status.message?.parts[0]?.text).toMatch(/Authorization required/);
    const authorized = await sendActs("my credentials", { taskId: auth.id });
    expect(authorized.status.state).toBe("TASK_STATE_COMPLETED");

    const failed = await sendActs("tck-task-failure please");
    expect(failed.status.state).toBe("TASK_STATE_FAILED");
    expect(failed.status.message?.parts[0]?.text).toMatch(/tck-task-failure/);
  });

  it("rejects, and makes a new task of every reused messageId", async () => {
    const rejected = await send("tck-reject-task");
    expect(rejected.status).toMatchObject({
      state: "TASK_STATE_REJECTED",
      message: { parts: [{ text: "rejected" }] },
    });
    const reused = message("tck-complete-task");
    const first = await rpc<{ task: WireTask }>("SendMessage", { message: reused });
    const second = await rpc<{ task: WireTask }>("SendMessage", { message: reused });
    expect(first.result?.task.id).not.toBe(second.result?.task.id);
  });

  it("takes parts of any media type, which a model agent refuses (-32005; REST 400)", async () => {
    const odd = { parts: [{ raw: "dGNr", mediaType: "application/x-unsupported-tck-type" }] };
    expect((await send("tck-complete-task", odd)).status.state).toBe("TASK_STATE_COMPLETED");
    const refused = (await (
      await post("SendMessage", { message: message("m", odd) }, {}, "/agents/writer/")
    ).json()) as RpcResponse;
    expect(refused.error?.code).toBe(-32005);
    const rest = await call("/agents/writer/message:send", {
      method: "POST",
      headers: { "A2A-Version": "1.0" },
      body: JSON.stringify({ message: message("m", odd) }),
    });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({
      error: { details: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] },
    });
  });

  it("keeps a long-running task working for its pause, then completes it", async () => {
    const task = (
      await rpc<{ task: WireTask }>("SendMessage", {
        message: message("test-resubscribe-message-id"),
        configuration: { returnImmediately: true },
      })
    ).result?.task as WireTask;
    await until(
      async () => (await rpc<WireTask>("GetTask", { id: task.id })).result,
      (t) => t?.status.state === "TASK_STATE_COMPLETED",
      60_000,
    );
    // Its event log: working, then completed no sooner than the program's 4 s pause.
    const log = (await (await call(`/api/tasks/${task.id}/events`)).json()) as {
      events: Array<{
        sinceStartMs: number;
        event: Record<string, { status?: { state: string } }>;
      }>;
    };
    const states = log.events.flatMap((e) =>
      e.event.statusUpdate?.status ? [[e.event.statusUpdate.status.state, e.sinceStartMs]] : [],
    );
    expect(states.map(([state]) => state)).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    expect(Number(states[1]?.[1])).toBeGreaterThanOrEqual(4_000);
  });
});

describe("the extended card (frontmatter extendedSkills)", () => {
  const skillIds = (card: { skills?: Array<{ id: string }> } | undefined) =>
    (card?.skills ?? []).map((s) => s.id);

  it("is declared on both cards of an open deployment", async () => {
    const v1 = (await (
      await call(`${BASE}.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
    ).json()) as { capabilities: Record<string, unknown>; skills: Array<{ id: string }> };
    expect(v1.capabilities.extendedAgentCard).toBe(true);
    expect(skillIds(v1)).not.toContain("conformance-extended");
    const v03 = (await (await call(`${BASE}.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(v03.supportsAuthenticatedExtendedCard).toBe(true);
  });

  it("gives an anonymous caller the public card over v1.0 and a 401 over v0.3", async () => {
    const v1 = await rpc<{ skills: Array<{ id: string }>; name: string }>(
      "GetExtendedAgentCard",
      {},
    );
    expect(v1.result?.name).toBe("conformance");
    expect(skillIds(v1.result)).not.toContain("conformance-extended");
    const rest = await call(`${BASE}extendedAgentCard`, { headers: { "A2A-Version": "1.0" } });
    expect(rest.status).toBe(200);
    const v03 = await call(BASE, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agent/getAuthenticatedExtendedCard" }),
    });
    expect(v03.status).toBe(401);
    expect(v03.headers.get("WWW-Authenticate")).toContain("Bearer");
    expect(((await v03.json()) as RpcResponse).error?.code).toBe(-32007);
    expect((await call(`${BASE}v1/card`)).status).toBe(401);
  });

  it("shows an authenticated caller the extended skills, over v1.0 and v0.3", async () => {
    const auth = { Authorization: `Bearer ${env.ADMIN_API_KEY}` };
    const v1 = (await (await post("GetExtendedAgentCard", {}, auth)).json()) as RpcResponse<{
      skills: Array<{ id: string }>;
    }>;
    expect(skillIds(v1.result)).toContain("conformance-extended");
    expect(skillIds(v1.result)).toContain("conformance-scenarios");
    const v03 = (await (
      await call(BASE, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "agent/getAuthenticatedExtendedCard",
        }),
      })
    ).json()) as RpcResponse<{ skills: Array<{ id: string }> }>;
    expect(skillIds(v03.result)).toContain("conformance-extended");
  });
});
