/**
 * The MCP face of an agent (`/agents/<name>/mcp`) with the official MCP client: its tools, a send
 * with progress notifications whose task A2A reads, a conversation continued by contextId, a form
 * answered with reply, a long task answered before it ends (MCP_WAIT_SECONDS) then canceled,
 * consent asked of an anonymous caller, and a closed deployment's 401 pointing at the RFC 9728
 * resource metadata.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { MCP_TOOL_NAMES } from "../../src/mcp-server/mcp-call.ts";
import worker from "../../src/worker.ts";
import { rpc, type WireTask } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser } from "../helpers/as-user.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { callTool as call, FACE_TOOLS } from "../helpers/mcp-calls.ts";
import { askChoice, textToolTurn as tool } from "../helpers/turns.ts";

const AGENT = "writer";

/** An MCP client of the agent, through the Worker's fetch with `bindings`. */
async function connect(bindings: Env = env, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://harness.test/agents/${AGENT}/mcp`),
    {
      fetch: async (url, init) =>
        worker.fetch(new Request(url, init), bindings, createExecutionContext()),
      ...(token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}),
    },
  );
  const client = new Client({ name: "mcp-face-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("the MCP face", () => {
  it("lists its five tools, with the agent's skills in send_message's description", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(FACE_TOOLS);
    const send = tools.find((t) => t.name === "send_message");
    expect(send?.description).toContain(`"${AGENT}"`);
    expect(send?.description).toContain("Skills:");
    expect(send?.inputSchema.required).toEqual(["text"]);
    await client.close();
  });

  it("answers a message with progress notifications; A2A reads the same task", async () => {
    const s = await scenario([{ text: "The edge is near.", chunkSize: 4 }]);
    const client = await connect();
    const notes: string[] = [];
    const { fields, text } = await call(
      client,
      "send_message",
      { text: `tell me ${s.marker}` },
      (m) => notes.push(m),
    );
    expect(fields).toMatchObject({ state: "completed", answer: "The edge is near." });
    expect(text).toContain(`taskId: ${fields.taskId}`);
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.some((n) => n.startsWith("answer:"))).toBe(true);
    const read = await rpc<WireTask>(
      "GetTask",
      { id: fields.taskId },
      { path: `/agents/${AGENT}` },
    );
    expect(read.result?.status.state).toBe("TASK_STATE_COMPLETED");
    expect(read.result?.contextId).toBe(fields.contextId);
    await client.close();
  });

  it("continues a conversation by contextId and lists its tasks", async () => {
    const s = await scenario([{ text: "First." }, { text: "Second." }]);
    const client = await connect();
    const first = await call(client, "send_message", { text: `one ${s.marker}` });
    const second = await call(client, "send_message", {
      text: `two ${s.marker}`,
      contextId: first.fields.contextId,
    });
    expect(second.fields).toMatchObject({ contextId: first.fields.contextId, answer: "Second." });
    const seen = JSON.stringify((await modelRequests(s.id)).at(-1)?.body.messages);
    expect(seen).toContain("First.");
    const listed = await call(client, "list_tasks", { contextId: first.fields.contextId });
    const ids = (listed.result.structuredContent as { tasks: Array<{ taskId: string }> }).tasks;
    expect(ids.map((t) => t.taskId).sort()).toEqual(
      [first.fields.taskId, second.fields.taskId].sort(),
    );
    // An anonymous caller naming no conversation lists nothing.
    expect((await call(client, "list_tasks", {})).text).toContain("No tasks.");
    await client.close();
  });

  it("asks with a form and goes on once reply sends its values", async () => {
    const s = await scenario([
      tool("ask_user", askChoice("Which day?", "day", ["mon", "fri"])),
      { text: "Friday it is." },
    ]);
    const client = await connect();
    const asked = await call(client, "send_message", { text: `plan ${s.marker}` });
    expect(asked.fields).toMatchObject({ state: "input-required", question: "Which day?" });
    expect(asked.fields.form).toMatchObject({ properties: { day: { enum: ["mon", "fri"] } } });
    expect(asked.text).toContain("reply tool");
    const answered = await call(client, "reply", {
      taskId: asked.fields.taskId,
      values: { day: "fri" },
    });
    expect(answered.fields).toMatchObject({
      taskId: asked.fields.taskId,
      state: "completed",
      answer: "Friday it is.",
    });
    expect(JSON.stringify((await modelRequests(s.id)).at(-1)?.body.messages)).toContain("fri");
    await client.close();
  });

  it("answers a long task with its id before it ends; get_task waits; cancel_task stops it", async () => {
    const brief = { ...env, MCP_WAIT_SECONDS: "1" } as Env;
    const s = await scenario([{ text: "x".repeat(400), chunkSize: 1, delayMs: 100 }]);
    const client = await connect(brief);
    const sent = await call(client, "send_message", { text: `long ${s.marker}` });
    expect(["submitted", "working"]).toContain(sent.fields.state);
    expect(sent.fields.resume).toEqual({
      tool: "get_task",
      arguments: { taskId: sent.fields.taskId, wait: true },
    });
    expect(sent.text).toContain("get_task");
    const waited = await call(client, "get_task", { taskId: sent.fields.taskId, wait: true });
    expect(["submitted", "working"]).toContain(waited.fields.state);
    const canceled = await call(client, "cancel_task", { taskId: sent.fields.taskId });
    expect(canceled.fields.state).toBe("canceled");
    const read = await rpc<WireTask>("GetTask", { id: sent.fields.taskId });
    expect(read.result?.status.state).toBe("TASK_STATE_CANCELED");
    const missing = await call(client, "get_task", { taskId: "no-such-task" });
    expect(missing.result.isError).toBe(true);
    await client.close();
  });

  it("answers hostile requests with 4xx, never 5xx", async () => {
    const post = (body: string, accept = "application/json, text/event-stream") =>
      worker.fetch(
        new Request(`http://harness.test/agents/${AGENT}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept },
          body,
        }),
        env,
        createExecutionContext(),
      );
    const cases: Array<[string, string?]> = [
      ["{not json"],
      ["[]"],
      ["null"],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}'],
      [
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_task","arguments":{"taskId":""}}}',
      ],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', "text/html"],
    ];
    for (const [body, accept] of cases) {
      const response = await post(body, accept);
      expect(response.status, body).toBeLessThan(500);
      await response.body?.cancel();
    }
    // A batch of sending calls is refused whole: none would be counted as a message.
    const send = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "send_message", arguments: { text: "batched" } },
    });
    const batch = await post(JSON.stringify([send(1), send(2), send(3)]));
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    const get = await callWorker(`/agents/${AGENT}/mcp`, {}, env);
    expect(get.status).toBe(405);
    expect(
      (await callWorker("/agents/nobody/mcp", { method: "POST", body: "{}" }, env)).status,
    ).toBe(404);
  });

  it("asks an anonymous caller for consent where the deployment requires it", async () => {
    const asking = { ...env, REQUIRE_CONSENT: "true", PRIVACY_POLICY_VERSION: "7" } as Env;
    const s = await scenario([{ text: "Consented." }]);
    const client = await connect(asking);
    const refused = await call(client, "send_message", { text: `hi ${s.marker}` });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toContain("Consent required");
    const sent = await call(client, "send_message", {
      text: `hi ${s.marker}`,
      privacyConsent: "7",
    });
    expect(sent.fields).toMatchObject({ state: "completed", answer: "Consented." });
    await client.close();
  });

  it("points a closed deployment's 401 at the resource metadata; a token gets in", async () => {
    const refused = await callWorker(`/agents/${AGENT}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(401);
    const header = refused.headers.get("WWW-Authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(header)?.[1] ?? "";
    expect(metadataUrl).toBe(
      `http://harness.test/.well-known/oauth-protected-resource/agents/${AGENT}/mcp`,
    );
    const metadata = await callWorker(new URL(metadataUrl).pathname);
    expect(await metadata.json()).toMatchObject({
      resource: `http://harness.test/agents/${AGENT}/mcp`,
      bearer_methods_supported: ["header"],
    });
    const { token } = await newUser();
    const client = await connect(closedEnv, token);
    const s = await scenario([{ text: "Hello, user." }]);
    const sent = await call(client, "send_message", { text: `hi ${s.marker}` });
    expect(sent.fields.answer).toBe("Hello, user.");
    const listed = await call(client, "list_tasks", {});
    expect(listed.text).toContain(sent.fields.taskId);
    await client.close();
  });
});

describe("the MCP face's edge", () => {
  /** Posts one raw MCP request (a JSON body unless told) from client address `ip`. */
  const postMcp = (
    body: BodyInit,
    bindings: Env = env,
    headers: Record<string, string> = {},
    ip = `mcp-${crypto.randomUUID()}`,
  ) =>
    callWorker(
      `/agents/${AGENT}/mcp`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "CF-Connecting-IP": ip,
          ...headers,
        },
        body,
      },
      bindings,
    );
  const toolCall = (name: string, args: unknown, meta?: Record<string, unknown>) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    });
  const nested = (depth: number): unknown => {
    let value: unknown = "v";
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  it("refuses reply values nested 40 and 2,400 deep (-32600); the waiting task takes nothing", async () => {
    const s = await scenario([tool("ask_user", askChoice("Which day?", "day", ["mon", "fri"]))]);
    const client = await connect();
    const asked = await call(client, "send_message", { text: `plan ${s.marker}` });
    await client.close();
    const taskId = asked.fields.taskId;
    const read = () => rpc<WireTask>("GetTask", { id: taskId }, { path: `/agents/${AGENT}/` });
    const before = await read();
    expect(before.result?.history?.length).toBeGreaterThan(0);
    for (const depth of [40, 2_400]) {
      const refused = await postMcp(toolCall("reply", { taskId, values: { day: nested(depth) } }));
      expect(refused.status, `${depth}`).toBe(400);
      expect(await refused.json()).toMatchObject({
        id: 7,
        error: { code: -32600, message: expect.stringContaining("deeper than 32 levels") },
      });
    }
    const after = await read();
    expect(after.result?.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(after.result?.history?.length).toBe(before.result?.history?.length);
  });

  it("takes JSON only: a text/plain send is a 415 and not counted as a message", async () => {
    const oneAMinute = { ...env, RATE_ANONYMOUS_PER_MINUTE: "1" } as Env;
    const ip = `mcp-${crypto.randomUUID()}`;
    const s = await scenario([{ text: "counted once" }]);
    const send = toolCall("send_message", { text: `hi ${s.marker}` });
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const refused = await postMcp(send, oneAMinute, { "content-type": type }, ip);
      expect(refused.status, type).toBe(415);
      expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
    const sent = await postMcp(send, oneAMinute, {}, ip);
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain("counted once");
  });

  it("lets no tool name reach the SDK's tool table: constructor, __proto__, toString are unknown", async () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "nope"]) {
      const response = await postMcp(toolCall(name, {}));
      expect(response.status, name).toBe(200);
      expect(await response.json(), name).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32602,
          message: `Unknown tool: ${name}; the tools are ${[
            "send_message",
            "reply",
            "get_task",
            "cancel_task",
            "list_tasks",
          ].join(", ")}`,
        },
      });
    }
    // The table the edge checks is the one the server lists.
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    await client.close();
  });

  it("refuses a progressToken longer than 256 characters; one of 256 is echoed", async () => {
    const list = (token: string) =>
      postMcp(toolCall("list_tasks", { contextId: crypto.randomUUID() }, { progressToken: token }));
    for (const token of ["x".repeat(257), "y".repeat(900_000)]) {
      const refused = await list(token);
      expect(refused.status).toBe(200);
      const text = await refused.text();
      expect(text.length).toBeLessThan(1_000);
      expect(JSON.parse(text)).toMatchObject({ id: 7, error: { code: -32602 } });
    }
    const taken = await list("z".repeat(256));
    expect(taken.status).toBe(200);
    expect(await taken.text()).toContain("No tasks.");
  });

  it("holds a stream lease while get_task waits: a second wait at a limit of one is a 429", async () => {
    const oneStream = { ...env, MAX_CONCURRENT_STREAMS: "1", MCP_WAIT_SECONDS: "30" } as Env;
    const ip = `mcp-${crypto.randomUUID()}`;
    const s = await scenario([{ text: "x".repeat(400), chunkSize: 1, delayMs: 100 }]);
    const started = await rpc<{ task: WireTask }>(
      "SendMessage",
      {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ text: `long ${s.marker}` }],
        },
        configuration: { returnImmediately: true },
      },
      { path: `/agents/${AGENT}/` },
    );
    const taskId = started.result?.task.id as string;
    const wait = () => postMcp(toolCall("get_task", { taskId, wait: true }), oneStream, {}, ip);
    const first = await wait();
    expect(first.status).toBe(200);
    const second = await wait();
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({
      error: { message: expect.stringContaining("Too many open streams") },
    });
    // A read that does not wait holds nothing.
    const read = await postMcp(toolCall("get_task", { taskId }), oneStream, {}, ip);
    expect(read.status).toBe(200);
    await read.text();
    await first.body?.cancel();
    await rpc("CancelTask", { id: taskId }, { path: `/agents/${AGENT}/` });
  });
});
