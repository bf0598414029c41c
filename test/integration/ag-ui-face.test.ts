/**
 * The AG-UI face (POST /agents/<name>/ag-ui) against the scripted model: a run streams the answer
 * as a text message and the harness's tool events as tool calls; a question ends the run with an
 * interrupt that the next run answers; the same task is read over A2A; a run sent again meets its
 * task; bad input is a JSON 400 before any event; an anonymous caller reaches no other's task; an
 * open run whose token is revoked ends with a RUN_ERROR that says so (STREAM_AUTH_RECHECK_MS).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { stopTasksOf } from "../../src/api/stop-tasks.ts";
import { revokeTokens } from "../../src/auth/users-store.ts";
import { fetchWorker, rpc, type WireTask } from "../helpers/a2a.ts";
import { callWorker, newUser } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { sseEvents } from "../helpers/sse.ts";
import { askChoice, textToolTurn as tool } from "../helpers/turns.ts";

const agent = env.DEFAULT_AGENT ?? "assistant";
const path = `/agents/${agent}/ag-ui`;

interface AgUiEvent {
  type: string;
  result?: { taskId: string };
  [key: string]: unknown;
}

/** Posts a run; its response. */
function postRun(input: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetchWorker(path, {
    method: "POST",
    body: JSON.stringify(input),
    headers: { accept: "text/event-stream", ...headers },
  });
}

/** Every event of a run's SSE stream, in order. */
async function runEvents(input: Record<string, unknown>): Promise<AgUiEvent[]> {
  const response = await postRun(input);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const text = await response.text();
  return text
    .split("\n\n")
    .map((frame) =>
      frame
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map((data) => JSON.parse(data) as AgUiEvent);
}

const input = (threadId: string, text: string, extra: Record<string, unknown> = {}) => ({
  threadId,
  runId: crypto.randomUUID(),
  messages: [
    { id: "m0", role: "assistant", content: "Earlier words the harness already keeps." },
    { id: crypto.randomUUID(), role: "user", content: text },
  ],
  tools: [],
  context: [],
  state: {},
  ...extra,
});

const textOf = (events: AgUiEvent[]) =>
  events
    .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
    .map((e) => e.delta)
    .join("");

describe("AG-UI face", () => {
  it("streams the answer as one text message and ends the run; A2A reads the same task", async () => {
    const s = await scenario([{ text: "Hello from the harness." }]);
    const threadId = crypto.randomUUID();
    const events = await runEvents(input(threadId, `hi ${s.marker}`));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types.filter((t) => t === "TEXT_MESSAGE_START")).toHaveLength(1);
    expect(types.indexOf("TEXT_MESSAGE_END")).toBeGreaterThan(types.indexOf("TEXT_MESSAGE_START"));
    expect(textOf(events)).toBe("Hello from the harness.");
    const finished = events.at(-1) as AgUiEvent & { result: { taskId: string } };
    expect(finished.threadId).toBe(threadId);
    const read = await rpc<{ id: string; contextId: string; status: { state: string } }>(
      "GetTask",
      { id: finished.result.taskId },
    );
    expect(read.result).toMatchObject({
      id: finished.result.taskId,
      contextId: threadId,
      status: { state: "TASK_STATE_COMPLETED" },
    });
  });

  it("shows a tool call with its result, then the answer", async () => {
    const s = await scenario([
      tool("write_file", { path: "notes/ag-ui.txt", content: "one\ntwo\n" }),
      { text: "Wrote the notes." },
    ]);
    const events = await runEvents(input(crypto.randomUUID(), `write ${s.marker}`));
    const start = events.find((e) => e.type === "TOOL_CALL_START");
    expect(start).toMatchObject({ toolCallName: "write_file" });
    const id = start?.toolCallId;
    const order = events.filter((e) => e.toolCallId === id).map((e) => e.type);
    expect(order).toEqual([
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
    ]);
    expect(String(events.find((e) => e.type === "TOOL_CALL_ARGS")?.delta)).toContain(
      "notes/ag-ui.txt",
    );
    expect(textOf(events)).toContain("Wrote the notes.");
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("ends a run that asks with an interrupt; the next run's answer resumes the same task", async () => {
    const s = await scenario([
      tool("ask_user", askChoice("Which colour?", "colour", ["blue", "green"])),
      { text: "Using blue." },
    ]);
    const threadId = crypto.randomUUID();
    const first = await runEvents(input(threadId, `report ${s.marker}`));
    const paused = first.at(-1) as {
      type: string;
      outcome: { type: string; interrupts: Array<Record<string, unknown>> };
      result: { taskId: string };
    };
    expect(paused.type).toBe("RUN_FINISHED");
    expect(paused.outcome.type).toBe("interrupt");
    expect(paused.outcome.interrupts[0]).toMatchObject({
      id: paused.result.taskId,
      reason: "input_required",
      message: "Which colour?",
      responseSchema: { properties: { colour: { enum: ["blue", "green"] } } },
    });
    const resumed = await runEvents({
      ...input(threadId, "ignored: the resume answers"),
      resume: [
        { interruptId: paused.result.taskId, status: "resolved", payload: { colour: "blue" } },
      ],
    });
    expect(textOf(resumed)).toBe("Using blue.");
    expect(resumed.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      result: { taskId: paused.result.taskId },
    });
  });

  it("a cancelled interrupt cancels the task", async () => {
    const s = await scenario([tool("ask_user", { question: "Go on?" }), { text: "never" }]);
    const threadId = crypto.randomUUID();
    const first = await runEvents(input(threadId, `ask ${s.marker}`));
    const taskId = first.at(-1)?.result?.taskId ?? "";
    const cancelled = await runEvents({
      ...input(threadId, "stop"),
      resume: [{ interruptId: taskId, status: "cancelled" }],
    });
    expect(cancelled.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      outcome: { type: "cancelled" },
    });
    const read = await rpc<WireTask>("GetTask", { id: taskId });
    expect(read.result?.status.state).toBe("TASK_STATE_CANCELED");
  });

  it("a run sent again with its runId meets its task instead of starting another", async () => {
    const s = await scenario([{ text: "Once." }, { text: "Twice?" }]);
    const run = input(crypto.randomUUID(), `once ${s.marker}`);
    const first = await runEvents(run);
    const again = await runEvents(run);
    const taskOf = (events: AgUiEvent[]) =>
      (events.at(-1) as { result?: { taskId?: string } }).result?.taskId;
    expect(taskOf(again)).toBe(taskOf(first));
    expect(textOf(again)).toBe("Once.");
  });

  it("refuses bad input with a JSON 400 before any event", async () => {
    const cases: Array<[unknown, string]> = [
      ["not json at all", "not JSON"],
      [{ runId: "r", messages: [] }, "threadId"],
      [
        { threadId: "t", runId: "r", messages: [{ id: "1", role: "assistant", content: "x" }] },
        "no user message",
      ],
      [
        {
          threadId: "t",
          runId: "r",
          messages: [],
          resume: [{ interruptId: "a", status: "resolved" }],
        },
        "payload",
      ],
      [
        {
          threadId: "x".repeat(300),
          runId: "r",
          messages: [{ id: "1", role: "user", content: "x" }],
        },
        "threadId",
      ],
    ];
    for (const [body, words] of cases) {
      const response = await fetchWorker(path, {
        method: "POST",
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(JSON.stringify(await response.json())).toContain(words);
    }
    const unknown = await fetchWorker("/agents/no-such-agent/ag-ui", {
      method: "POST",
      body: JSON.stringify(input("t", "hi")),
    });
    expect(unknown.status).toBe(404);
  });

  it("takes JSON only: text/plain, a form or no type is a 415, and not counted as a run", async () => {
    const oneAMinute = { ...env, RATE_ANONYMOUS_PER_MINUTE: "1" } as Env;
    const ip = `ag-ui-${crypto.randomUUID()}`;
    const body = JSON.stringify(input(crypto.randomUUID(), "hi"));
    const run = (type: string | null, bytes: BodyInit = body) =>
      callWorker(
        path,
        {
          method: "POST",
          headers: {
            accept: "text/event-stream",
            "CF-Connecting-IP": ip,
            ...(type ? { "content-type": type } : {}),
          },
          body: bytes,
        },
        oneAMinute,
      );
    for (const [type, bytes] of [
      ["text/plain", body],
      ["application/x-www-form-urlencoded", body],
      [null, new TextEncoder().encode(body)],
    ] as const) {
      const refused = await run(type, bytes);
      expect(refused.status, String(type)).toBe(415);
      expect(await refused.json()).toMatchObject({
        error: { code: 415, message: expect.stringContaining("must be sent as JSON") },
      });
    }
    const s = await scenario([{ text: "counted once" }]);
    const sent = await run(
      "application/json",
      JSON.stringify(input(crypto.randomUUID(), `hi ${s.marker}`)),
    );
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain("counted once");
  });

  it("answers SSE unless the client names the protobuf type (Accept: */* is SSE)", async () => {
    for (const accept of ["*/*", "application/*", "", "text/event-stream, */*"]) {
      const s = await scenario([{ text: "sse" }]);
      const response = await postRun(input(crypto.randomUUID(), `a ${s.marker}`), { accept });
      expect(response.headers.get("content-type"), accept).toContain("text/event-stream");
      await response.text();
    }
    const s = await scenario([{ text: "proto" }]);
    const proto = await postRun(input(crypto.randomUUID(), `p ${s.marker}`), {
      accept: "application/vnd.ag-ui.event+proto",
    });
    expect(proto.headers.get("content-type")).toBe("application/vnd.ag-ui.event+proto");
    await proto.arrayBuffer();
  });

  it("refuses a body nested deeper than 32 levels with a 400, before any task", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const response = await postRun(input(crypto.randomUUID(), "hi", { forwardedProps: deep }));
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("deeper than 32 levels");
  });

  it("an anonymous caller cannot answer or cancel another conversation's task", async () => {
    const s = await scenario([tool("ask_user", { question: "Secret?" }), { text: "no" }]);
    const victimThread = crypto.randomUUID();
    const first = await runEvents(input(victimThread, `mine ${s.marker}`));
    const taskId = first.at(-1)?.result?.taskId ?? "";
    for (const status of ["resolved", "cancelled"]) {
      const response = await postRun({
        ...input(crypto.randomUUID(), "hijack"),
        resume: [{ interruptId: taskId, status, payload: "yes" }],
      });
      const body = await response.text();
      expect(response.status, body).toBe(404);
      expect(body).not.toContain("Secret?");
      expect(body).not.toContain(victimThread);
    }
    const read = await rpc<WireTask>("GetTask", { id: taskId });
    expect(read.result?.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
  });

  it("asks an anonymous caller for consent where the deployment requires it (forwardedProps)", async () => {
    const asking = { ...env, REQUIRE_CONSENT: "true", PRIVACY_POLICY_VERSION: "7" } as Env;
    const s = await scenario([{ text: "Consented." }]);
    const post = (extra: Record<string, unknown>) =>
      callWorker(
        path,
        {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify(input(crypto.randomUUID(), `hi ${s.marker}`, extra)),
        },
        asking,
      );
    const refused = await post({});
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("Consent required");
    expect((await post({ forwardedProps: { privacyConsent: 6 } })).status).toBe(400);
    const sent = await post({ forwardedProps: { privacyConsent: "7" } });
    expect(sent.status).toBe(200);
    const events = await sent.text();
    expect(events).toContain("Consented.");
    expect(events).toContain("RUN_FINISHED");
  });

  it("ends an open run with RUN_ERROR once its token is revoked, as A2A streams end", async () => {
    const { id, token } = await newUser();
    // 400 deltas 400 ms apart: the task streams for minutes, so only the revocation can end the
    // run (its re-check every 5 s, over a lookup cached 5 s, has found the token gone).
    const s = await scenario([{ text: "x".repeat(400), chunkSize: 1, delayMs: 400 }]);
    const response = await callWorker(path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(input(crypto.randomUUID(), `stream ${s.marker}`)),
    });
    expect(response.status).toBe(200);
    const events: AgUiEvent[] = [];
    for await (const event of sseEvents(response)) {
      events.push(JSON.parse(event.data) as AgUiEvent);
      if (events.length === 1) await revokeTokens(env.DB, id);
    }
    expect(events.at(-1)).toEqual({
      type: "RUN_ERROR",
      message: "Unauthorized: the credentials were revoked",
      code: "UNAUTHENTICATED",
    });
    expect(events.some((e) => e.type === "RUN_FINISHED")).toBe(false);
    expect(textOf(events).length).toBeLessThan(400);
    await stopTasksOf(env, id);
  }, 60_000);
});
