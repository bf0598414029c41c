/**
 * Live messages to a working task (the live-messages extension): SendLiveMessage over JSON-RPC and
 * `POST live` over HTTP+JSON, and a plain send that lists the extension, are answered at once with
 * the working task; the message shows on the task's stream, is kept with the task across an object
 * restart, and is in the next model request as a user turn (the scripted model records requests).
 * MCP's `reply` and a new AG-UI run on the task's thread steer it the same way.
 */
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { LIVE_MESSAGES_EXTENSION } from "../../src/protocol/extensions.ts";
import { LIVE_MESSAGE_MAX_CHARS, LIVE_QUEUE_MAX } from "../../src/protocol/live-message.ts";
import worker from "../../src/worker.ts";
import { fetchWorker, postRpc, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { newUser, rpcAs } from "../helpers/as-user.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { callTool } from "../helpers/mcp-calls.ts";
import { sseEvents } from "../helpers/sse.ts";
import { getTask, startTask, untilState } from "../helpers/tasks.ts";
import { until } from "../helpers/until.ts";

/** A first turn slow enough to send a message while it streams (at least 3 s: 30 chunks, 100 ms apart). */
const SLOW = { text: "w".repeat(60), chunkSize: 2, delayMs: 100 };

/** Whether the text appears in a user message of a recorded model request. */
function userTexts(request: { body: { messages: Array<{ role: string; content: unknown }> } }) {
  return request.body.messages
    .filter((m) => m.role === "user")
    .map((m) => JSON.stringify(m.content))
    .join("\n");
}

/** Waits until the task's first model call is under way (the model has been asked). */
async function working(scenarioId: string, taskId: string, path = "/"): Promise<void> {
  await until(
    () => modelRequests(scenarioId),
    (requests) => requests.length >= 1,
  );
  expect((await getTask(taskId, { path })).status.state).toBe("TASK_STATE_WORKING");
}

const live = (taskId: string, text: string) =>
  rpc<{ task: WireTask }>("SendLiveMessage", { message: userMessage(text, { taskId }) });

describe("live messages to a working task", () => {
  it("is acknowledged at once, shows on the stream, and reaches the next model request", async () => {
    const s = await scenario([
      { ...SLOW, toolUses: [{ name: "noop", input: {} }] },
      { text: "ok" },
    ]);
    const task = await startTask(`work ${s.marker}`);
    await working(s.id, task.id);
    const stream = await postRpc("/", "SubscribeToTask", { id: task.id });
    const sent = await live(task.id, "steer: answer in French");
    expect(sent.error).toBeUndefined();
    expect(sent.result?.task.id).toBe(task.id);
    expect(sent.result?.task.status.state).toBe("TASK_STATE_WORKING");
    let shown: Record<string, unknown> | undefined;
    for await (const event of sseEvents(stream)) {
      const result = JSON.parse(event.data).result as Record<string, Record<string, unknown>>;
      const message = (result.statusUpdate?.status as Record<string, unknown> | undefined)
        ?.message as Record<string, unknown> | undefined;
      if (message?.role === "ROLE_USER") shown = message;
      if ((result.statusUpdate?.status as { state?: string })?.state === "TASK_STATE_COMPLETED")
        break;
    }
    expect(shown).toMatchObject({
      role: "ROLE_USER",
      parts: [{ text: "steer: answer in French" }],
      extensions: [LIVE_MESSAGES_EXTENSION],
    });
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(2);
    expect(userTexts(requests[0] as (typeof requests)[0])).not.toContain("steer: answer");
    expect(userTexts(requests[1] as (typeof requests)[0])).toContain("steer: answer in French");
    const done = await getTask(task.id);
    expect(done.history?.some((m) => JSON.stringify(m).includes("steer: answer"))).toBe(true);
  });

  it("a message that comes in during the last turn keeps the task going for one more", async () => {
    const s = await scenario([SLOW, { text: "second answer" }]);
    const task = await startTask(`last ${s.marker}`);
    await working(s.id, task.id);
    // Over HTTP+JSON: the draft's POST live.
    const response = await fetchWorker("/live", {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ message: userMessage("one more thing", { taskId: task.id }) }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { task: WireTask };
    expect(body.task.status.state).toBe("TASK_STATE_WORKING");
    const done = await untilState(task.id, "TASK_STATE_COMPLETED", 30_000);
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(2);
    expect(userTexts(requests[1] as (typeof requests)[0])).toContain("one more thing");
    expect(done.artifacts?.[0]?.parts[0]?.text).toContain("second answer");
  });

  it("a plain send naming the working task and listing the extension is queued, not refused", async () => {
    const s = await scenario([SLOW, { text: "fine" }]);
    const task = await startTask(`plain ${s.marker}`);
    await working(s.id, task.id);
    const message = userMessage("plain steer", {
      taskId: task.id,
      extensions: [LIVE_MESSAGES_EXTENSION],
    });
    // A blocking send: answered at once all the same.
    const sent = await rpc<{ task: WireTask }>("SendMessage", { message });
    expect(sent.result?.task.status.state).toBe("TASK_STATE_WORKING");
    await untilState(task.id, "TASK_STATE_COMPLETED", 30_000);
    const requests = await modelRequests(s.id);
    expect(userTexts(requests.at(-1) as (typeof requests)[0])).toContain("plain steer");
  });

  it("caps the queue and the message size with typed errors; another owner cannot send", async () => {
    const s = await scenario([{ text: "x".repeat(400), chunkSize: 2, delayMs: 40 }]);
    const task = await startTask(`caps ${s.marker}`);
    await working(s.id, task.id);
    const big = await live(task.id, "y".repeat(LIVE_MESSAGE_MAX_CHARS + 1));
    expect(big.error?.code).toBe(-32602);
    expect(big.error?.message).toContain(`at most ${LIVE_MESSAGE_MAX_CHARS}`);
    for (let i = 0; i < LIVE_QUEUE_MAX; i++)
      expect((await live(task.id, `m${i}`)).error).toBeUndefined();
    const full = await live(task.id, "one too many");
    expect(full.error?.code).toBe(-32004);
    expect(full.error?.message).toContain(`${LIVE_QUEUE_MAX} live messages`);
    const { token } = await newUser();
    const other = await rpcAs(token, "SendLiveMessage", {
      message: userMessage("not yours", { taskId: task.id }),
    });
    expect(other.body.error?.code).toBe(-32001);
    const noTask = await rpc("SendLiveMessage", { message: userMessage("where?") });
    expect(noTask.error?.code).toBe(-32602);
    await rpc("CancelTask", { id: task.id });
  });

  it("a queued message survives an object restart and reaches the model after it", async () => {
    const s = await scenario([SLOW, { text: "after restart" }]);
    const task = await startTask(`crash ${s.marker}`);
    await working(s.id, task.id);
    expect((await live(task.id, "kept across the crash")).error).toBeUndefined();
    const stub = env.TASKS.get(env.TASKS.idFromName(task.id));
    await runInDurableObject(stub, (_instance, state) => state.abort(EXPECTED_CRASH)).catch(
      () => {},
    );
    await untilState(task.id, "TASK_STATE_COMPLETED", 60_000);
    const requests = await modelRequests(s.id);
    expect(userTexts(requests.at(-1) as (typeof requests)[0])).toContain("kept across the crash");
  }, 60_000);

  it("a send naming a working task without the extension is still refused as busy", async () => {
    const s = await scenario([{ text: "z".repeat(400), chunkSize: 2, delayMs: 40 }]);
    const task = await startTask(`busy ${s.marker}`);
    await working(s.id, task.id);
    const busy = await rpc("SendMessage", { message: userMessage("and?", { taskId: task.id }) });
    expect(busy.error?.code).toBe(-32004);
    expect(busy.error?.message).toContain(LIVE_MESSAGES_EXTENSION);
    await rpc("CancelTask", { id: task.id });
  });

  it("MCP's reply to a working task steers it, and waits for its answer", async () => {
    const s = await scenario([SLOW, { text: "steered by MCP" }]);
    const task = await startTask(`mcp ${s.marker}`, {}, { path: "/agents/writer/" });
    await working(s.id, task.id, "/agents/writer/");
    const transport = new StreamableHTTPClientTransport(
      new URL("http://harness.test/agents/writer/mcp"),
      {
        fetch: async (url, init) =>
          worker.fetch(new Request(url, init), env, createExecutionContext()),
      },
    );
    const client = new Client({ name: "live-messages-test", version: "1.0.0" });
    await client.connect(transport);
    const { fields } = await callTool(client, "reply", { taskId: task.id, text: "via MCP" });
    expect(fields.state).toBe("completed");
    expect(fields.answer).toContain("steered by MCP");
    const requests = await modelRequests(s.id);
    expect(userTexts(requests.at(-1) as (typeof requests)[0])).toContain("via MCP");
    await client.close();
  });

  it("a new AG-UI run on the thread of a working task steers that task", async () => {
    const s = await scenario([SLOW, { text: "steered by AG-UI" }]);
    const task = await startTask(`ag-ui ${s.marker}`, {}, { path: "/agents/writer/" });
    await working(s.id, task.id, "/agents/writer/");
    // The thread's task is listed from the D1 index, written once the task works.
    await until(
      async () =>
        (
          await rpc<{ tasks: WireTask[] }>(
            "ListTasks",
            { contextId: task.contextId, status: "TASK_STATE_WORKING" },
            { path: "/agents/writer/" },
          )
        ).result?.tasks ?? [],
      (tasks) => tasks.length === 1,
    );
    const response = await fetchWorker("/agents/writer/ag-ui", {
      method: "POST",
      headers: { accept: "text/event-stream" },
      body: JSON.stringify({
        threadId: task.contextId,
        runId: crypto.randomUUID(),
        messages: [{ id: crypto.randomUUID(), role: "user", content: "via AG-UI" }],
        tools: [],
        context: [],
        state: {},
      }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(`"taskId":"${task.id}"`);
    expect(text).toContain("RUN_FINISHED");
    const requests = await modelRequests(s.id);
    expect(userTexts(requests.at(-1) as (typeof requests)[0])).toContain("via AG-UI");
  });
});
