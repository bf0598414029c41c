/**
 * The HTTP+JSON binding: v1.0 paths and v0.3 `v1/` paths on the same task objects as JSON-RPC,
 * with the spec's statuses, bodies and content types.
 */
import { describe, expect, it } from "vitest";
import { answerText, fetchWorker, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import { sseEvents } from "../helpers/sse.ts";

const V1 = { "A2A-Version": "1.0", "content-type": "application/a2a+json" };

async function rest(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = V1,
) {
  const response = await fetchWorker(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe("HTTP+JSON binding, v1.0", () => {
  it("POST message:send returns the completed task as application/a2a+json", async () => {
    const s = await scenario([{ text: "rest answer" }]);
    const { status, type, body } = await rest("POST", "/agents/writer/message:send", {
      message: userMessage(`r ${s.marker}`),
    });
    expect(status).toBe(200);
    expect(type).toBe("application/a2a+json");
    const task = body.task as WireTask;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(answerText(task)).toBe("rest answer");
  });

  it("GET tasks/{id} (with historyLength), POST tasks/{id}:cancel, and the same task over JSON-RPC", async () => {
    const s = await scenario([{ text: "z".repeat(40), chunkSize: 2, delayMs: 40 }]);
    const sent = await rest("POST", "/message:send", {
      message: userMessage(`c ${s.marker}`),
      configuration: { returnImmediately: true },
    });
    const id = (sent.body.task as WireTask).id;
    const got = await rest("GET", `/tasks/${id}?historyLength=0`);
    expect(got.status).toBe(200);
    expect((got.body as WireTask).history).toBeUndefined();
    const viaRpc = await rpc<WireTask>("GetTask", { id });
    expect(viaRpc.result?.id).toBe(id);
    const canceled = await rest("POST", `/tasks/${id}:cancel`);
    expect((canceled.body as WireTask).status.state).toBe("TASK_STATE_CANCELED");
    const again = await rest("POST", `/tasks/${id}:cancel`);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      error: {
        code: 400,
        status: "FAILED_PRECONDITION",
        details: [{ reason: "TASK_NOT_CANCELABLE" }],
      },
    });
  });

  it("POST message:stream and tasks/{id}:subscribe stream bare StreamResponses with SSE ids", async () => {
    const s = await scenario([{ text: "streamed over rest", chunkSize: 4, delayMs: 20 }]);
    const response = await fetchWorker("/agents/writer/message:stream", {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ message: userMessage(`s ${s.marker}`) }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = [];
    for await (const e of sseEvents(response))
      events.push({
        id: e.id,
        data: JSON.parse(e.data) as Record<string, Record<string, unknown>>,
      });
    expect(Object.keys(events[0]?.data ?? {})).toEqual(["task"]);
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.data.statusUpdate?.status).toMatchObject({
      state: "TASK_STATE_COMPLETED",
    });
    const id = String(events[0]?.data.task?.id);
    const replay = [];
    for await (const e of sseEvents(
      await fetchWorker(`/agents/writer/tasks/${id}:subscribe`, {
        headers: { ...V1, "Last-Event-ID": "2" },
      }),
    ))
      replay.push(Number(e.id));
    expect(replay[0]).toBe(3);
    const ended = await rest("POST", `/agents/writer/tasks/${id}:subscribe`);
    expect(ended.status).toBe(400);
    expect(ended.body).toMatchObject({ error: { details: [{ reason: "UNSUPPORTED_OPERATION" }] } });
  });

  it("GET tasks lists the caller's tasks with filters and pages", async () => {
    const s = await scenario([{ text: "listed" }]);
    const contextId = crypto.randomUUID();
    for (let i = 0; i < 3; i++)
      await rest("POST", "/agents/researcher/message:send", {
        message: userMessage(`l${i} ${s.marker}`, { contextId }),
      });
    const page = await rest("GET", `/agents/researcher/tasks?contextId=${contextId}&pageSize=2`);
    expect(page.status).toBe(200);
    expect((page.body.tasks as unknown[]).length).toBe(2);
    expect(page.body.totalSize).toBe(3);
    expect(page.body.nextPageToken).not.toBe("");
    const bad = await rest("GET", "/agents/researcher/tasks?pageSize=1000");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("query.pageSize") },
    });
  });

  it("answers errors with the spec's HTTP statuses and google.rpc.Status bodies", async () => {
    const missing = await rest("GET", "/tasks/no-such-task");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      error: {
        code: 404,
        status: "NOT_FOUND",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "TASK_NOT_FOUND",
            domain: "a2a-protocol.org",
          },
        ],
      },
    });
    const invalid = await rest("POST", "/message:send", {
      message: { role: "ROLE_USER", parts: [] },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      error: {
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest" }],
      },
    });
    const push = await rest("POST", "/tasks/abc/pushNotificationConfigs", { url: "https://x" });
    expect(push.status).toBe(404);
    expect(push.body).toMatchObject({ error: { details: [{ reason: "TASK_NOT_FOUND" }] } });
    const noVersion = await rest("GET", "/tasks/abc", undefined, {});
    expect(noVersion.status).toBe(400);
    expect(noVersion.body).toMatchObject({
      error: { details: [{ reason: "VERSION_NOT_SUPPORTED" }] },
    });
    const unknown = await rest("DELETE", "/agents/writer/message:send");
    expect(unknown.status).toBe(404);
  });
});

describe("HTTP+JSON binding, v0.3 (v1/ paths)", () => {
  it("sends, reads and streams in the v0.3 wire format", async () => {
    const s = await scenario([{ text: "legacy rest", chunkSize: 3 }]);
    const message = {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      content: [{ text: `v03 ${s.marker}` }],
    };
    const sent = await rest(
      "POST",
      "/agents/writer/v1/message:send",
      { message, configuration: { blocking: true } },
      { "content-type": "application/json" },
    );
    expect(sent.status).toBe(200);
    expect(sent.type).toBe("application/json");
    const task = sent.body.task as Record<string, unknown> & {
      status: { state: string };
      artifacts: Array<{ parts: Array<{ text: string }> }>;
      history: Array<{ content: unknown[] }>;
    };
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]?.parts[0]?.text).toBe("legacy rest");
    expect(task.history[0]?.content).toHaveLength(1);
    const got = await rest("GET", `/agents/writer/v1/tasks/${String(task.id)}`, undefined, {});
    expect(got.body.id).toBe(task.id);
    const missing = await rest("GET", "/agents/writer/v1/tasks/nope", undefined, {});
    expect(missing).toMatchObject({ status: 404, body: { code: -32001 } });

    const events = [];
    const streamed = await fetchWorker("/agents/writer/v1/message:stream", {
      method: "POST",
      body: JSON.stringify({ message: { ...message, messageId: crypto.randomUUID() } }),
    });
    for await (const e of sseEvents(streamed))
      events.push(JSON.parse(e.data) as Record<string, Record<string, unknown>>);
    expect(events.at(-1)?.statusUpdate).toMatchObject({
      final: true,
      status: { state: "TASK_STATE_COMPLETED" },
    });
  });

  it("names ids by their proto names, and a client continues the conversation with them", async () => {
    const s = await scenario([{ text: "first" }, { text: "second" }]);
    const send = (message: Record<string, unknown>) =>
      rest(
        "POST",
        "/agents/writer/v1/message:send",
        { message, configuration: { blocking: true } },
        { "content-type": "application/json" },
      );
    const first = (
      await send({
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        content: [{ text: `a ${s.marker}` }],
      })
    ).body.task as Record<string, unknown> & { history: Array<Record<string, unknown>> };
    expect(first.contextId).toBeUndefined();
    expect(typeof first.context_id).toBe("string");
    expect(first.history[0]).toMatchObject({ context_id: first.context_id, task_id: first.id });
    expect(typeof first.history[0]?.message_id).toBe("string");
    // The kit's continuation: the same task, its context_id, in the proto names too.
    const second = await send({
      message_id: crypto.randomUUID(),
      role: "ROLE_USER",
      context_id: first.context_id,
      content: [{ text: `b ${s.marker}` }],
    });
    expect(second.status).toBe(200);
    expect((second.body.task as Record<string, unknown>).context_id).toBe(first.context_id);
  });
});
