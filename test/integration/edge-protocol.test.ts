/**
 * The protocol edge where the official A2A conformance kit found gaps: request media types
 * (-32005 / 415), answer media types (application/json unless application/a2a+json is asked
 * for), HTTP+JSON statuses of spec 1.0.1 §5.4, unknown fields ignored, ProtoJSON proto names,
 * v0.3 streaming errors in the stream, the v0.3 REST enum spelling, and JSON-RPC methods named
 * like Object.prototype members.
 */
import { describe, expect, it } from "vitest";
import { fetchWorker, type RpcResponse, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import { sseEvents } from "../helpers/sse.ts";

const V1 = { "A2A-Version": "1.0" };
const body = (method: string, params: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id: 5, method, params });

describe("request media types", () => {
  it("JSON-RPC: a body that is not JSON by its Content-Type is -32005 (HTTP 415), before it is parsed", async () => {
    for (const headers of [V1, {}]) {
      const response = await fetchWorker("/", {
        method: "POST",
        headers: { ...headers, "content-type": "text/plain" },
        body: "{'jsonrpc': '2.0'}",
      });
      expect(response.status).toBe(415);
      const answer = (await response.json()) as RpcResponse;
      expect(answer.error?.code).toBe(-32005);
    }
    for (const type of ["application/a2a+json", "application/json; charset=utf-8"]) {
      const ok = await fetchWorker("/", {
        method: "POST",
        headers: { ...V1, "content-type": type },
        body: body("GetTask", { id: "none" }),
      });
      expect(((await ok.json()) as RpcResponse).error?.code, type).toBe(-32001);
    }
  });

  it("HTTP+JSON: a body sent as text/plain is 415 ContentTypeNotSupported, v1.0 and v0.3", async () => {
    const v1 = await fetchWorker("/message:send", {
      method: "POST",
      headers: { ...V1, "content-type": "text/plain" },
      body: JSON.stringify({ message: userMessage("hi") }),
    });
    expect(v1.status).toBe(415);
    expect(await v1.json()).toMatchObject({
      error: { code: 415, details: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] },
    });
    const v03 = await fetchWorker("/v1/message:send", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(v03.status).toBe(415);
    expect(await v03.json()).toMatchObject({ code: -32005 });
  });
});

describe("HTTP+JSON answers", () => {
  it("answer application/json unless the client asks for application/a2a+json, errors too", async () => {
    const missing = (headers: Record<string, string>) =>
      fetchWorker("/tasks/none", { headers: { ...V1, ...headers } });
    expect((await missing({})).headers.get("content-type")).toBe("application/json");
    expect((await missing({ Accept: "*/*" })).headers.get("content-type")).toBe("application/json");
    const asked = await missing({ Accept: "application/a2a+json, application/json" });
    expect(asked.status).toBe(404);
    expect(asked.headers.get("content-type")).toBe("application/a2a+json");
  });

  it("use the statuses of spec 1.0.1 §5.4: 400 for an unsupported version and a finished task's cancel", async () => {
    const version = await fetchWorker("/message:send", {
      method: "POST",
      headers: { "A2A-Version": "99.0" },
      body: JSON.stringify({ message: userMessage("v") }),
    });
    expect(version.status).toBe(400);
    expect(await version.json()).toMatchObject({
      error: { details: [{ reason: "VERSION_NOT_SUPPORTED" }] },
    });
    const s = await scenario([{ text: "done" }]);
    const task = (
      await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(`x ${s.marker}`) })
    ).result?.task as WireTask;
    const cancel = await fetchWorker(`/tasks/${task.id}:cancel`, { method: "POST", headers: V1 });
    expect(cancel.status).toBe(400);
    expect(await cancel.json()).toMatchObject({
      error: { details: [{ reason: "TASK_NOT_CANCELABLE" }] },
    });
  });

  it("spell the canceled state TASK_STATE_CANCELLED in the v0.3 shape, as the v0.3 proto does", async () => {
    const s = await scenario([{ text: "x".repeat(50), chunkSize: 1, delayMs: 200 }]);
    const sent = await fetchWorker("/v1/message:send", {
      method: "POST",
      body: JSON.stringify({
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          content: [{ text: s.marker }],
        },
        configuration: { blocking: false },
      }),
    });
    const id = ((await sent.json()) as { task: WireTask }).task.id;
    const canceled = (await (
      await fetchWorker(`/v1/tasks/${id}:cancel`, { method: "POST" })
    ).json()) as WireTask;
    expect(canceled.status.state).toBe("TASK_STATE_CANCELLED");
  });
});

describe("what clients may send", () => {
  it("ignores unrecognized fields on both bindings (spec 1.0.1 §5.7)", async () => {
    const s = await scenario([{ text: "ok" }, { text: "ok" }]);
    const extra = {
      message: { ...userMessage(`u ${s.marker}`), tckUnknownField: "ignored" },
      tckExtraParam: 42,
    };
    const viaRpc = await fetchWorker("/", {
      method: "POST",
      headers: V1,
      body: body("SendMessage", extra),
    });
    expect(((await viaRpc.json()) as RpcResponse).error).toBeUndefined();
    const viaRest = await fetchWorker("/message:send", {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ ...extra, message: { ...extra.message, messageId: "u2" } }),
    });
    expect(viaRest.status).toBe(200);
  });

  it("takes fields under their proto names (history_length), as ProtoJSON parsers do", async () => {
    const s = await scenario([{ text: "history" }]);
    const task = (
      await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(`h ${s.marker}`) })
    ).result?.task as WireTask;
    const got = await rpc<WireTask>("GetTask", { id: task.id, history_length: 1 });
    expect(got.result?.history).toHaveLength(1);
  });

  it("answers methods named like Object.prototype members with -32601, both generations", async () => {
    for (const method of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      for (const headers of [V1, {}]) {
        const response = await fetchWorker("/", {
          method: "POST",
          headers,
          body: body(method, {}),
        });
        expect(response.status, method).toBe(200);
        expect(((await response.json()) as RpcResponse).error?.code, method).toBe(-32601);
      }
    }
    const hook = await fetchWorker("/webhooks/__proto__", { method: "POST", body: "{}" });
    expect(hook.status).toBe(404);
  });

  it("v0.3: a malformed push config is -32602, and a streaming method's error comes in the stream", async () => {
    for (const params of [{}, { taskId: 5 }, { taskId: "t", pushNotificationConfig: "x" }]) {
      const response = await fetchWorker("/", {
        method: "POST",
        body: body("tasks/pushNotificationConfig/set", params),
      });
      expect(((await response.json()) as RpcResponse).error?.code).toBe(-32602);
    }
    const resubscribe = await fetchWorker("/", {
      method: "POST",
      body: body("tasks/resubscribe", { id: "no-such-task" }),
    });
    expect(resubscribe.headers.get("content-type")).toBe("text/event-stream");
    const events = [];
    for await (const e of sseEvents(resubscribe)) events.push(JSON.parse(e.data) as RpcResponse);
    expect(events).toHaveLength(1);
    expect(events[0]?.error?.code).toBe(-32001);
  });
});
