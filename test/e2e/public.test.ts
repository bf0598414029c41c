/**
 * A public agent under `npm run dev` (open to anonymous callers), as an attacker tries it:
 * - two anonymous callers: B sees nothing of A on any route (discovery, sessions, account routes,
 *   its own workspace, memory and model context), over A2A and over the MCP face;
 * - run_code with its guard switched off from inside still stops at its time limit (its error, not
 *   before the limit by the isolate's own clock) while /health keeps answering; how soon it stops
 *   and how fast /health answers meanwhile are the machine's speed, measured by bench:run-code;
 * - an oversized chunked body gets 413 and the server keeps serving.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenario } from "./client.ts";
import type { DevServer } from "./dev-server.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

let harness: SharedHarness;
let fake: SharedHarness["fake"];
let server: DevServer;

beforeAll(async () => {
  harness = await sharedScriptedHarness();
  ({ fake, server } = harness);
});

afterAll(async () => {
  await harness?.release();
});

type Task = { id: string; contextId: string; status: { state: string } };

/** One anonymous caller: no credentials, only what the server told it. */
async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}
const rpc = (method: string, params: unknown, path = "/") =>
  call(path, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
const send = async (text: string, extra: Record<string, unknown> = {}) =>
  (
    (
      await rpc("SendMessage", {
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
      })
    ).json() as { result: { task: Task } }
  ).result.task;

const tool = (name: string, input: Record<string, unknown>) => ({
  toolUses: [{ name, input }],
});

describe("anonymous callers of a public agent", () => {
  it("B sees nothing of A on any route", async () => {
    const secret = `secret-${crypto.randomUUID().slice(0, 8)}`;
    const a = await scenario(fake.url, `public-a-${secret}`, [
      tool("write_file", { path: "a-plan.md", content: `A's plan ${secret}` }),
      tool("memory_write", { content: `A prefers ${secret}` }),
      tool("progress_update", { remaining: [`A's next step ${secret}`] }),
      tool("read_file", { path: "a-plan.md" }),
      { text: `A is done ${secret}` },
    ]);
    const taskA = await send(`A's prompt ${secret} ${a}`);
    expect(taskA.status.state).toBe("TASK_STATE_COMPLETED");

    const bId = `public-b-${crypto.randomUUID()}`;
    const b = await scenario(fake.url, bId, [
      tool("list_files", {}),
      tool("read_file", { path: "a-plan.md" }),
      tool("memory_read", {}),
      tool("progress_read", {}),
      { text: "B is done" },
    ]);
    const taskB = await send(`B asks ${b}`);
    expect(taskB.status.state).toBe("TASK_STATE_COMPLETED");
    expect(taskB.contextId).not.toBe(taskA.contextId);
    // B's model saw nothing of A: prompt, file, memory, progress, handoff, task id.
    const seenByB = JSON.stringify(fake.store.requests(bId));
    for (const trace of [secret, taskA.id, taskA.contextId]) expect(seenByB).not.toContain(trace);

    // Every route B can call without credentials.
    const routes: Array<[string, RequestInit]> = [
      ["/tasks", { headers: { "A2A-Version": "1.0" } }],
      ["/agents/assistant/tasks", { headers: { "A2A-Version": "1.0" } }],
      [`/tasks?contextId=${taskB.contextId}`, { headers: { "A2A-Version": "1.0" } }],
      ["/api/sessions", {}],
      [`/api/sessions/${taskB.contextId}`, {}],
      [`/api/tasks/${taskB.id}/events`, {}],
      ["/api/usage", {}],
      ["/api/users/anonymous/data", {}],
      ["/api/users/anonymous/data", { method: "DELETE" }],
      [`/api/users/${String(taskA.id)}/data`, {}],
      ["/api/schedules", {}],
    ];
    for (const [path, init] of routes) {
      const answer = await call(path, init);
      expect(answer.status, path).toBeLessThan(500);
      for (const trace of [secret, taskA.id, taskA.contextId])
        expect(answer.text, `${path} shows A`).not.toContain(trace);
    }
    for (const params of [{}, { contextId: taskB.contextId }]) {
      const listed = (await rpc("ListTasks", params)).text;
      expect(listed).not.toContain(taskA.id);
    }
    const accounts = await call("/api/usage");
    expect(accounts.status).toBe(403);
    // A's conversation is whole after all of B's tries.
    const stillA = (await rpc("GetTask", { id: taskA.id })).json() as {
      result: Task;
    };
    expect(stillA.result.status.state).toBe("TASK_STATE_COMPLETED");
  });
});

/** One anonymous MCP caller of the assistant: the official MCP client, no credentials. */
async function mcpCaller(): Promise<Client> {
  const client = new Client({ name: "e2e-public", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/agents/assistant/mcp`)),
  );
  return client;
}

const mcpCall = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return { text, fields: result.structuredContent as Record<string, unknown>, result };
};

describe("anonymous MCP callers of a public agent", () => {
  it("B sees nothing of A through the MCP face, nor through A2A", async () => {
    const secret = `mcp-secret-${crypto.randomUUID().slice(0, 8)}`;
    const a = await scenario(fake.url, `public-mcp-a-${secret}`, [
      tool("memory_write", { content: `A prefers ${secret}` }),
      { text: `A is done ${secret}` },
    ]);
    const callerA = await mcpCaller();
    const sentA = await mcpCall(callerA, "send_message", { text: `A's prompt ${secret} ${a}` });
    expect(sentA.fields.state).toBe("completed");
    const taskA = String(sentA.fields.taskId);
    const contextA = String(sentA.fields.contextId);

    const bId = `public-mcp-b-${crypto.randomUUID()}`;
    const b = await scenario(fake.url, bId, [tool("memory_read", {}), { text: "B is done" }]);
    const callerB = await mcpCaller();
    const sentB = await mcpCall(callerB, "send_message", { text: `B asks ${b}` });
    expect(sentB.fields.state).toBe("completed");
    expect(sentB.fields.contextId).not.toBe(contextA);
    const seenByB = JSON.stringify(fake.store.requests(bId));
    for (const trace of [secret, taskA, contextA]) expect(seenByB).not.toContain(trace);
    // B's lists: none without a conversation, only its own in its conversation.
    for (const args of [{}, { contextId: sentB.fields.contextId }]) {
      const listed = await mcpCall(callerB, "list_tasks", args);
      for (const trace of [secret, taskA, contextA]) expect(listed.text).not.toContain(trace);
    }
    // A task id B invents finds nothing.
    const guessed = await mcpCall(callerB, "get_task", { taskId: crypto.randomUUID() });
    expect(guessed.result.isError).toBe(true);
    // A2A without credentials sees no more of A's MCP task than of A2A ones.
    for (const params of [{}, { contextId: sentB.fields.contextId }])
      expect((await rpc("ListTasks", params)).text).not.toContain(taskA);
    await callerA.close();
    await callerB.close();
  });
});

describe("run_code's guard", () => {
  it("stops code that switches it off at its limit while /health keeps answering", async () => {
    const limitMs = 400;
    const id = `public-guard-${crypto.randomUUID()}`;
    const marker = await scenario(fake.url, id, [
      tool("run_code", {
        code: "globalThis.__a2aGuard = () => {};\nDate.now = () => 0;\nwhile (true) {}",
        language: "javascript",
        timeout_ms: limitMs,
      }),
      { text: "stopped" },
    ]);
    const latencies: number[] = [];
    let running = true;
    const poll = (async () => {
      while (running) {
        const started = performance.now();
        const health = await fetch(`${server.url}/health`);
        expect(health.status).toBe(200);
        latencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const task = await send(`spin ${marker}`);
    running = false;
    await poll;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const result = JSON.stringify(fake.store.requests(id).at(-1)?.body);
    expect(result).toContain(`RangeError: time limit: the code ran for more than ${limitMs} ms`);
    const durationMs = Number(/run_code: exit 1 in (\d+) ms/.exec(result)?.[1]);
    console.log(
      JSON.stringify({
        msg: "guard override under npm run dev",
        limitMs,
        durationMs,
        healthPolls: latencies.length,
        healthMaxMs: Math.round(Math.max(...latencies)),
      }),
    );
    expect(durationMs).toBeGreaterThanOrEqual(limitMs);
    expect(latencies.length).toBeGreaterThan(0);
  });
});

describe("request bodies", () => {
  it("answers a 2.2 MB chunked body with 413 and keeps serving", async () => {
    for (const path of ["/", "/webhooks/none", "/agents/writer/message:send"]) {
      const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 35) return controller.close();
          sent++;
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body,
        duplex: "half",
      } as RequestInit);
      expect([413, 404], path).toContain(response.status);
      await response.text();
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    }
  });
});
