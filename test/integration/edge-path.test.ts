/**
 * One path through the edge, counted (not timed): with the rate limits, the stream lease and
 * consent all on, each request body is parsed by JSON.parse exactly once (and never by
 * `Request.json`), each request's params schema runs exactly once, and no @a2a-js/sdk class
 * conversion (`fromJSON` / `toJSON`) runs on the server path: JSON-RPC v1.0 send, stream and
 * list, JSON-RPC v0.3 send and stream, HTTP+JSON v1.0 and v0.3 send, an MCP tools/call and an
 * AG-UI run. The limits read what the edge read: an MCP tool call that sends and an AG-UI run
 * count as messages, an MCP call that only reads does not.
 */

import { env } from "cloudflare:workers";
import {
  AgentCard,
  Artifact,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { listTasksParams, sendMessageParams } from "../../src/protocol/params.ts";
import { messageSendParamsV03 } from "../../src/protocol/v03/params.ts";
import { userMessage, v03Message, type WireTask } from "../helpers/a2a.ts";
import { callWorker } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { collectSse } from "../helpers/sse.ts";

/** Anonymous callers, every edge check that reads the request switched on. */
const edgeEnv = {
  ...env,
  RATE_ANONYMOUS_PER_MINUTE: "100000",
  MAX_CONCURRENT_STREAMS: "1000",
  REQUIRE_CONSENT: "true",
} as Env;

/** The SDK's message classes (ts-proto codecs) a server path would convert through. */
const SDK_CLASSES = [
  Task,
  Message,
  Part,
  Artifact,
  SendMessageRequest,
  StreamResponse,
  ListTasksRequest,
  ListTasksResponse,
  GetTaskRequest,
  CancelTaskRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  AgentCard,
] as unknown as Array<Record<"fromJSON" | "toJSON", (value: unknown) => unknown>>;

let parse: MockInstance<typeof JSON.parse>;
let requestJson: MockInstance<Request["json"]>;
let sdkSpies: MockInstance[] = [];

beforeEach(() => {
  parse = vi.spyOn(JSON, "parse");
  requestJson = vi.spyOn(Request.prototype, "json");
  sdkSpies = SDK_CLASSES.flatMap((codec) => [
    vi.spyOn(codec, "fromJSON"),
    vi.spyOn(codec, "toJSON"),
  ]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** How often JSON.parse saw exactly `body`. */
const parsesOf = (body: string) => parse.mock.calls.filter(([text]) => text === body).length;

const sdkConversions = () => sdkSpies.reduce((n, spy) => n + spy.mock.calls.length, 0);

let consentVersion: string | null = null;

/** The policy version an anonymous message must carry in metadata.privacyConsent. */
async function consentMetadata(): Promise<Record<string, unknown>> {
  if (consentVersion === null) {
    const policy = await callWorker("/api/privacy", {}, edgeEnv);
    consentVersion = ((await policy.json()) as { version: string }).version;
  }
  return { privacyConsent: consentVersion };
}

async function post(path: string, body: string, version: "1.0" | "0.3") {
  return callWorker(
    path,
    {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": version },
      body,
    },
    edgeEnv,
  );
}

/** Expects the one parse, the one validation by `schema`, and no SDK conversion. */
function expectOnePath(body: string, schema: { safeParse: unknown }, validations: MockInstance) {
  expect(parsesOf(body), "JSON.parse of the body").toBe(1);
  expect(requestJson).not.toHaveBeenCalled();
  expect(validations, `${String(schema)} validations`).toHaveBeenCalledTimes(1);
  expect(sdkConversions(), "SDK fromJSON/toJSON calls").toBe(0);
}

describe("one parse, one validation, no SDK class on the server path", () => {
  it("JSON-RPC v1.0 SendMessage", async () => {
    const s = await scenario([{ text: "one path" }]);
    const metadata = await consentMetadata();
    const validations = vi.spyOn(sendMessageParams(), "safeParse");
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: userMessage(`a ${s.marker}`, { metadata }) },
    });
    const response = await post("/agents/writer/", body, "1.0");
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result: { task: WireTask } };
    expect(answer.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    expectOnePath(body, sendMessageParams(), validations);
  });

  it("JSON-RPC v1.0 SendStreamingMessage: each event with its sequence number as SSE id", async () => {
    const s = await scenario([{ text: "streamed here", chunkSize: 4 }]);
    const metadata = await consentMetadata();
    const validations = vi.spyOn(sendMessageParams(), "safeParse");
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: "s",
      method: "SendStreamingMessage",
      params: { message: userMessage(`b ${s.marker}`, { metadata }) },
    });
    const response = await post("/agents/writer/", body, "1.0");
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = await collectSse(response);
    expect(events.length).toBeGreaterThan(2);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(events.at(-1)?.body.result).toMatchObject({
      statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } },
    });
    expectOnePath(body, sendMessageParams(), validations);
  });

  it("JSON-RPC v1.0 ListTasks", async () => {
    const validations = vi.spyOn(listTasksParams(), "safeParse");
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "ListTasks",
      params: { contextId: crypto.randomUUID() },
    });
    const response = await post("/agents/writer/", body, "1.0");
    expect(((await response.json()) as { result: { tasks: unknown[] } }).result.tasks).toEqual([]);
    expectOnePath(body, listTasksParams(), validations);
  });

  it("JSON-RPC v0.3 message/send and message/stream", async () => {
    const metadata = await consentMetadata();
    for (const method of ["message/send", "message/stream"]) {
      const s = await scenario([{ text: "legacy" }]);
      const validations = vi.spyOn(messageSendParamsV03(), "safeParse");
      const v1Validations = vi.spyOn(sendMessageParams(), "safeParse");
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method,
        params: { message: v03Message(`c ${s.marker}`, { metadata }) },
      });
      const response = await post("/agents/writer/", body, "0.3");
      if (method === "message/send") {
        const answer = (await response.json()) as { result: { kind: string; status: unknown } };
        expect(answer.result).toMatchObject({ kind: "task", status: { state: "completed" } });
      } else {
        const events = await collectSse(response);
        expect(events.at(-1)?.body.result).toMatchObject({ kind: "status-update", final: true });
      }
      expectOnePath(body, messageSendParamsV03(), validations);
      // The v0.3 params are translated, not validated again in the v1.0 shape.
      expect(v1Validations).not.toHaveBeenCalled();
      vi.clearAllMocks();
    }
  });

  it("HTTP+JSON v1.0 message:send and v0.3 v1/message:send", async () => {
    const metadata = await consentMetadata();
    const s = await scenario([{ text: "rest one" }, { text: "rest two" }]);
    const cases = [
      {
        path: "/agents/writer/message:send",
        version: "1.0" as const,
        body: { message: userMessage(`d ${s.marker}`, { metadata }) },
      },
      {
        path: "/agents/writer/v1/message:send",
        version: "0.3" as const,
        body: {
          message: {
            messageId: crypto.randomUUID(),
            role: "ROLE_USER",
            content: [{ text: `e ${s.marker}` }],
            metadata,
          },
        },
      },
    ];
    for (const { path, version, body: json } of cases) {
      const validations = vi.spyOn(sendMessageParams(), "safeParse");
      const body = JSON.stringify(json);
      const response = await post(path, body, version);
      expect(response.status, path).toBe(200);
      const answer = (await response.json()) as { task: { status: { state: string } } };
      expect(answer.task.status.state).toBe("TASK_STATE_COMPLETED");
      expectOnePath(body, sendMessageParams(), validations);
      vi.clearAllMocks();
    }
  });

  it("MCP tools/call send_message", async () => {
    const s = await scenario([{ text: "over MCP" }]);
    const { privacyConsent } = await consentMetadata();
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "send_message", arguments: { text: `f ${s.marker}`, privacyConsent } },
    });
    const response = await postMcp(body);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("over MCP");
    expect(parsesOf(body), "JSON.parse of the body").toBe(1);
    expect(requestJson).not.toHaveBeenCalled();
    expect(sdkConversions(), "SDK fromJSON/toJSON calls").toBe(0);
  });

  it("AG-UI run", async () => {
    const s = await scenario([{ text: "over AG-UI" }]);
    const validations = vi.spyOn(RunAgentInputSchema, "safeParse");
    const body = JSON.stringify(runInput(`g ${s.marker}`));
    // An anonymous AG-UI run carries no consent: this deployment does not ask for it.
    const response = await postRun(body, { ...edgeEnv, REQUIRE_CONSENT: "false" } as Env);
    expect(response.status).toBe(200);
    const events = await response.text();
    expect(events).toContain("over AG-UI");
    expect(events).toContain("RUN_FINISHED");
    expectOnePath(body, RunAgentInputSchema, validations);
  });
});

/** An MCP request to the writer (anonymous, from `ip` when given). */
function postMcp(body: string, bindings: Env = edgeEnv, ip?: string) {
  return callWorker(
    "/agents/writer/mcp",
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(ip ? { "CF-Connecting-IP": ip } : {}),
      },
      body,
    },
    bindings,
  );
}

/** An AG-UI run of the writer (anonymous, from `ip` when given). */
function postRun(body: string, bindings: Env, ip?: string) {
  return callWorker(
    "/agents/writer/ag-ui",
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...(ip ? { "CF-Connecting-IP": ip } : {}),
      },
      body,
    },
    bindings,
  );
}

const runInput = (text: string) => ({
  threadId: crypto.randomUUID(),
  runId: crypto.randomUUID(),
  messages: [{ id: crypto.randomUUID(), role: "user", content: text }],
  tools: [],
  context: [],
  state: {},
});

const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name, arguments: args },
  });

describe("the limits read the call the edge read", () => {
  /** One message a minute per IP; each test its own IP. */
  const oneAMinute = { ...env, RATE_ANONYMOUS_PER_MINUTE: "1" } as Env;
  const newIp = () => `ip-${crypto.randomUUID()}`;

  it("an MCP tool call that sends is a message; one that reads is not", async () => {
    const ip = newIp();
    const list = toolCall("list_tasks", { contextId: crypto.randomUUID() });
    for (let i = 0; i < 3; i++) {
      const listed = await postMcp(list, oneAMinute, ip);
      expect(listed.status, "list_tasks").toBe(200);
      await listed.body?.cancel();
    }
    const s = await scenario([{ text: "counted" }]);
    const sent = await postMcp(toolCall("send_message", { text: `h ${s.marker}` }), oneAMinute, ip);
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain("counted");
    const again = await postMcp(toolCall("reply", { taskId: "t", text: "x" }), oneAMinute, ip);
    expect(again.status).toBe(429);
    expect(again.headers.get("Retry-After")).toMatch(/^\d+$/);
  });

  it("an AG-UI run is a message", async () => {
    const ip = newIp();
    const s = await scenario([{ text: "run counted" }]);
    const first = await postRun(JSON.stringify(runInput(`i ${s.marker}`)), oneAMinute, ip);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("run counted");
    const second = await postRun(JSON.stringify(runInput("again")), oneAMinute, ip);
    expect(second.status).toBe(429);
  });
});
