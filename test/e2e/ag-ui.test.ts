/**
 * The AG-UI face under `npm run dev`, with the real AG-UI clients:
 * - `@ag-ui/client`'s HttpAgent runs an agent, receives the answer as a text stream and a tool
 *   call with its result, and resumes a task after an interrupt; the official A2A client then
 *   reads the same task;
 * - `@ag-ui/a2a` (the AG-UI to A2A bridge) shows the answer text of an A2A task;
 * - an anonymous AG-UI caller cannot answer, cancel or read another conversation's task.
 */
import { ClientFactory } from "@a2a-js/sdk/client";
import { A2AAgent } from "@ag-ui/a2a";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { A2AClient } from "a2a-sdk-v02/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askChoice, toolTurn as tool } from "../helpers/turns.ts";
import { answerOf, asTask, scenario, stateOf } from "./client.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

const AGENT = "assistant";
let harness: SharedHarness;

beforeAll(async () => {
  harness = await sharedScriptedHarness();
});

afterAll(async () => {
  await harness?.release();
});

const url = () => `${harness.server.url}/agents/${AGENT}/ag-ui`;

/** A run of `agent` with `params`: every event it received, and the run's result. */
async function run(agent: HttpAgent | A2AAgent, params: Parameters<HttpAgent["runAgent"]>[0] = {}) {
  const events: BaseEvent[] = [];
  const result = await agent.runAgent(params, {
    onEvent: ({ event }) => {
      events.push(event);
    },
  });
  return { events, result };
}

const textOf = (events: BaseEvent[]) =>
  events
    .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
    .map((e) => (e as unknown as { delta: string }).delta)
    .join("");

const finished = (events: BaseEvent[]) =>
  events.find((e) => e.type === "RUN_FINISHED") as unknown as
    | {
        result?: { taskId: string };
        outcome?: { type: string; interrupts?: Array<{ id: string; message?: string }> };
      }
    | undefined;

describe("AG-UI clients", () => {
  it("HttpAgent streams the answer and a tool call; A2A reads the same task", async () => {
    const id = `agui-${crypto.randomUUID()}`;
    const marker = await scenario(harness.fake.url, id, [
      tool("write_file", { path: "agui/notes.md", content: "from AG-UI\n" }),
      { text: "Saved your notes." },
    ]);
    const agent = new HttpAgent({ url: url() });
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: `save notes ${marker}` });
    const { events, result } = await run(agent);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types).toContain("TOOL_CALL_START");
    expect(types).toContain("TOOL_CALL_RESULT");
    const toolCall = events.find((e) => e.type === "TOOL_CALL_START") as unknown as {
      toolCallName: string;
    };
    expect(toolCall.toolCallName).toBe("write_file");
    expect(textOf(events)).toContain("Saved your notes.");
    const said = result.newMessages.filter((m) => m.role === "assistant");
    expect(JSON.stringify(said)).toContain("Saved your notes.");

    const taskId = finished(events)?.result?.taskId ?? "";
    expect(taskId).not.toBe("");
    const a2a = await new ClientFactory().createFromUrl(`${harness.server.url}/agents/${AGENT}/`);
    const task = asTask(await a2a.getTask({ id: taskId, tenant: "" }));
    expect(task.contextId).toBe(agent.threadId);
    expect(answerOf(task)).toContain("Saved your notes.");
  });

  it("HttpAgent resumes the task after an interrupt", async () => {
    const id = `agui-ask-${crypto.randomUUID()}`;
    const marker = await scenario(harness.fake.url, id, [
      tool("ask_user", askChoice("Which colour?", "colour", ["blue", "green"])),
      { text: "Painting it blue." },
    ]);
    const agent = new HttpAgent({ url: url() });
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: `paint ${marker}` });
    const first = await run(agent);
    const outcome = finished(first.events)?.outcome;
    expect(outcome?.type).toBe("interrupt");
    const interrupt = outcome?.interrupts?.[0];
    expect(interrupt?.message).toBe("Which colour?");
    const second = await run(agent, {
      resume: [
        { interruptId: interrupt?.id ?? "", status: "resolved", payload: { colour: "blue" } },
      ],
    });
    expect(textOf(second.events)).toContain("Painting it blue.");
    expect(finished(second.events)?.result?.taskId).toBe(interrupt?.id);
  });

  it("@ag-ui/a2a shows the answer text of an A2A task", async () => {
    const id = `agui-bridge-${crypto.randomUUID()}`;
    const marker = await scenario(harness.fake.url, id, [{ text: "Bridged answer text." }]);
    const a2aClient = new A2AClient(`${harness.server.url}/agents/${AGENT}/`);
    const agent = new A2AAgent({ a2aClient: a2aClient as never });
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: `bridge ${marker}` });
    const { events, result } = await run(agent);
    const shown = `${textOf(events)} ${JSON.stringify(result.newMessages)}`;
    expect(shown).toContain("Bridged answer text.");
  });

  it("an anonymous caller cannot answer, cancel or read another conversation's task", async () => {
    const id = `agui-victim-${crypto.randomUUID()}`;
    const marker = await scenario(harness.fake.url, id, [
      tool("ask_user", { question: "Your secret word?" }),
      { text: "never reached" },
    ]);
    const victim = new HttpAgent({ url: url() });
    victim.addMessage({ id: crypto.randomUUID(), role: "user", content: `secret ${marker}` });
    const paused = finished((await run(victim)).events);
    const taskId = paused?.outcome?.interrupts?.[0]?.id ?? "";
    expect(taskId).not.toBe("");
    for (const status of ["resolved", "cancelled"] as const) {
      const response = await fetch(url(), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({
          threadId: crypto.randomUUID(),
          runId: crypto.randomUUID(),
          messages: [],
          tools: [],
          context: [],
          resume: [{ interruptId: taskId, status, payload: "hijacked" }],
        }),
      });
      const text = await response.text();
      expect(response.status, text).toBe(404);
      expect(text).not.toContain("Your secret word?");
      expect(text).not.toContain(victim.threadId);
    }
    // The victim's task still waits for its own answer.
    const a2a = await new ClientFactory().createFromUrl(`${harness.server.url}/agents/${AGENT}/`);
    const task = asTask(await a2a.getTask({ id: taskId, tenant: "" }));
    expect(stateOf(task)).toBe("TASK_STATE_INPUT_REQUIRED");
  });
});
