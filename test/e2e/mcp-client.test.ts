/**
 * The MCP face under `wrangler dev` (`npm run dev`), driven by the official MCP TypeScript client
 * over Streamable HTTP: it lists an agent's tools, sends with progress notifications, continues
 * the conversation, cancels a running task and answers a form; the official A2A client then
 * reads the same tasks.
 */
import { ListTasksRequest } from "@a2a-js/sdk";
import { type Client as A2AClient, ClientFactory } from "@a2a-js/sdk/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { callTool, FACE_TOOLS } from "../helpers/mcp-calls.ts";
import { askChoice, toolTurn } from "../helpers/turns.ts";
import { answerOf, stateOf, waitForState } from "./client.ts";
import { type DevServer, type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";
import { addScenario } from "./scenarios.ts";

let harness: ScriptedHarness;
let fake: ScriptedHarness["fake"];
let server: DevServer;
let mcp: Client;
let a2a: A2AClient;

const scenario = (turns: Turn[]) => addScenario(fake.store, turns, "e2e-mcp");

const call = async (
  name: string,
  args: Record<string, unknown>,
  onProgress?: (m: string) => void,
) => (await callTool(mcp, name, args, onProgress)).fields;

beforeAll(async () => {
  // A short bound, so a long task answers (with its id) while it still works.
  harness = await startScriptedHarness({ MCP_WAIT_SECONDS: "3" });
  ({ fake, server } = harness);
  mcp = new Client({ name: "e2e-mcp", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/agents/writer/mcp`)));
  a2a = await new ClientFactory().createFromUrl(`${server.url}/agents/writer/`);
});

afterAll(async () => {
  await mcp?.close();
  await harness?.stop();
});

describe("official MCP client against wrangler dev", () => {
  it("lists the agent's tools", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(FACE_TOOLS);
  });

  it("sends with progress, continues the conversation, and A2A reads both tasks", async () => {
    const s = scenario([
      { text: "The first answer.", chunkSize: 4, delayMs: 20 },
      { text: "The second answer." },
    ]);
    const notes: string[] = [];
    const first = await call("send_message", { text: `first ${s.marker}` }, (m) => notes.push(m));
    expect(first).toMatchObject({ state: "completed", answer: "The first answer." });
    expect(notes.some((n) => n.startsWith("answer:"))).toBe(true);
    const second = await call("send_message", {
      text: `second ${s.marker}`,
      contextId: first.contextId,
    });
    expect(second).toMatchObject({ contextId: first.contextId, answer: "The second answer." });
    expect(JSON.stringify(fake.store.requests(s.id).at(-1))).toContain("The first answer.");

    const read = await a2a.getTask({ id: first.taskId, tenant: "" });
    expect(stateOf(read)).toBe("TASK_STATE_COMPLETED");
    expect(answerOf(read)).toBe("The first answer.");
    const listed = await a2a.listTasks(
      ListTasksRequest.fromJSON({ contextId: first.contextId, pageSize: 10 }),
    );
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([first.taskId, second.taskId].sort());
  });

  it("answers a long task with its id while it works, then cancels it", async () => {
    const s = scenario([{ text: "y".repeat(600), chunkSize: 1, delayMs: 100 }]);
    const sent = await call("send_message", { text: `long ${s.marker}` });
    expect(["submitted", "working"]).toContain(sent.state);
    const canceled = await call("cancel_task", { taskId: sent.taskId });
    expect(canceled.state).toBe("canceled");
    expect(stateOf(await waitForState(a2a, sent.taskId, "TASK_STATE_CANCELED"))).toBe(
      "TASK_STATE_CANCELED",
    );
  });

  it("answers an input-required form with reply, and A2A sees the resumed task", async () => {
    const s = scenario([
      toolTurn("ask_user", askChoice("Which day?", "day", ["mon", "fri"])),
      { text: "Friday it is." },
    ]);
    const asked = await call("send_message", { text: `plan ${s.marker}` });
    expect(asked).toMatchObject({ state: "input-required", question: "Which day?" });
    expect(asked.form).toMatchObject({ properties: { day: { enum: ["mon", "fri"] } } });
    const answered = await call("reply", { taskId: asked.taskId, values: { day: "fri" } });
    expect(answered).toMatchObject({ taskId: asked.taskId, state: "completed" });
    expect(answered.answer).toBe("Friday it is.");
    const read = await a2a.getTask({ id: asked.taskId, tenant: "" });
    expect(stateOf(read)).toBe("TASK_STATE_COMPLETED");
    expect(JSON.stringify(read.history)).toContain("fri");
  });
});
