/**
 * Every error the JSON-RPC endpoint answers, with the code and details the A2A spec gives.
 */
import {
  createExecutionContext,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker.ts";
import { fetchWorker, type RpcResponse, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";

const post = async (body: string, headers: Record<string, string> = { "A2A-Version": "1.0" }) => {
  const response = await fetchWorker("/", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as RpcResponse };
};

const errorInfoReason = (response: RpcResponse) =>
  (response.error?.data ?? []).find(
    (d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo",
  )?.reason;

async function completedTask(): Promise<WireTask> {
  const sent = await rpc<{ task: WireTask }>("SendMessage", {
    message: userMessage("[[reply:done]]"),
  });
  expect(sent.result?.task.status.state, JSON.stringify(sent.result?.task.status)).toBe(
    "TASK_STATE_COMPLETED",
  );
  return sent.result?.task as WireTask;
}

describe("JSON-RPC errors", () => {
  it("-32700 for a body that is not JSON", async () => {
    const { status, body } = await post("{not json");
    expect(status).toBe(200);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(body.error?.message).toMatch(/^Invalid JSON payload/);
  });

  it("-32600 for a request object that is not JSON-RPC 2.0, keeping a usable id", async () => {
    expect((await post(JSON.stringify({ id: 7, method: "GetTask" }))).body).toMatchObject({
      id: 7,
      error: { code: -32600, message: expect.stringContaining("jsonrpc") },
    });
    expect((await post(JSON.stringify({ jsonrpc: "2.0", id: 8 }))).body.error?.code).toBe(-32600);
    expect(
      (await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "GetTask" }]))).body.error
        ?.message,
    ).toContain("batch");
    expect(
      (await post(JSON.stringify({ jsonrpc: "2.0", id: { x: 1 }, method: "GetTask" }))).body,
    ).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
  });

  it("-32601 for an unknown method, listing the known ones", async () => {
    const { body } = await post(
      JSON.stringify({ jsonrpc: "2.0", id: "a", method: "message/send", params: {} }),
    );
    expect(body.error?.code).toBe(-32601);
    expect(body.error?.message).toMatch(
      /^Method not found: message\/send \(A2A 1\.0 methods: SendMessage, /,
    );
    expect(JSON.stringify(body.error?.data)).toContain("SendMessage");
  });

  it("-32601 naming the method to call for older names such as message/sendSubscribe", async () => {
    const call = (method: string, headers?: Record<string, string>) =>
      post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }), headers);
    const v03 = (await call("message/sendSubscribe", {})).body;
    expect(v03.error?.code).toBe(-32601);
    expect(v03.error?.message).toMatch(/^Method not found: message\/sendSubscribe \(A2A 0\.3 /);
    expect(v03.error?.message).toMatch(
      /; message\/sendSubscribe is an older name: call message\/stream \(A2A 0\.3; in A2A 1\.0: SendStreamingMessage\)$/,
    );
    const v1 = (await call("message/sendSubscribe")).body;
    expect(v1.error?.code).toBe(-32601);
    expect(v1.error?.message).toMatch(
      /: call SendStreamingMessage \(A2A 1\.0; in A2A 0\.3: message\/stream\)$/,
    );
    expect((await call("tasks/sendSubscribe", {})).body.error?.message).toContain(
      "call message/stream",
    );
    expect((await call("tasks/send", {})).body.error?.message).toContain("call message/send");
    // Only the table's own names: an inherited property name gets no hint.
    expect((await call("constructor", {})).body.error?.message).not.toContain("older name");
  });

  it("-32601 names each version's own name for the other's method, both ways", async () => {
    const call = async (method: string, headers?: Record<string, string>) =>
      (await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }), headers)).body
        .error?.message;
    // A v1.0 name over v0.3, the version asked for by its header.
    expect(await call("SendMessage", { "A2A-Version": "0.3" })).toMatch(
      /; SendMessage is an A2A 1\.0 method: over A2A 0\.3 call message\/send, or send A2A-Version: 1\.0 to call it$/,
    );
    // A v0.3 name over v1.0.
    expect(await call("tasks/get")).toMatch(
      /; tasks\/get is an A2A 0\.3 method: over A2A 1\.0 call GetTask, or send A2A-Version: 0\.3 to call it$/,
    );
    // A method only v1.0 has: the header that reaches it.
    expect(await call("ListTasks", { "A2A-Version": "0.3" })).toMatch(
      /; ListTasks is an A2A 1\.0 method: over A2A 0\.3 send A2A-Version: 1\.0 to call it$/,
    );
  });

  it("-32601 says which method a near miss meant, in either version's spelling", async () => {
    const call = async (method: string, headers?: Record<string, string>) =>
      (await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }), headers)).body
        .error?.message;
    expect(await call("SendMesage")).toMatch(/; did you mean SendMessage\?$/);
    expect(await call("sendmessage")).toMatch(/; did you mean SendMessage\?$/);
    expect(await call("GetTsak")).toMatch(/; did you mean GetTask\?$/);
    expect(await call("message/sned", { "A2A-Version": "0.3" })).toMatch(
      /; did you mean message\/send\?$/,
    );
    expect(await call("message/sned")).toMatch(
      /; did you mean SendMessage\? \(message\/send in A2A 0\.3\)$/,
    );
    // Nothing near: the list of methods only.
    expect(await call("DeleteEverything")).toMatch(/\)$/);
  });

  it("-32602 with google.rpc.BadRequest field violations for invalid params", async () => {
    const cases: Array<[unknown, string]> = [
      [{}, "params.message"],
      [{ message: { messageId: "m", role: "ROLE_USER", parts: [] } }, "params.message.parts"],
      [
        { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "x" }] } },
        "params.message.role",
      ],
      [
        { message: { messageId: "", role: "ROLE_USER", parts: [{ text: "x" }] } },
        "params.message.messageId",
      ],
      [
        { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x", data: 1 }] } },
        "params.message.parts.0",
      ],
      [
        {
          message: {
            messageId: "m",
            role: "ROLE_USER",
            parts: [{ raw: "%%%", mediaType: "image/png" }],
          },
        },
        "params.message.parts.0.raw",
      ],
      [[1, 2], "params"],
    ];
    for (const [params, field] of cases) {
      const { body } = await post(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params }),
      );
      expect(body.error?.code, JSON.stringify(params)).toBe(-32602);
      const violations = body.error?.data?.[0] as {
        "@type": string;
        fieldViolations: Array<{ field: string }>;
      };
      expect(violations["@type"]).toBe("type.googleapis.com/google.rpc.BadRequest");
      expect(violations.fieldViolations[0]?.field).toBe(field);
    }
    const get = await rpc("GetTask", { id: "x", historyLength: -1 });
    expect(get.error?.code).toBe(-32602);
    expect(get.error?.message).toContain("params.historyLength");
  });

  it("-32001 TaskNotFound for unknown task ids, on get, cancel, subscribe and follow-up", async () => {
    for (const [method, params] of [
      ["GetTask", { id: "no-such-task" }],
      ["CancelTask", { id: "no-such-task" }],
      ["SendMessage", { message: userMessage("hi", { taskId: "no-such-task" }) }],
    ] as const) {
      const response = await rpc(method, params);
      expect(response.error?.code, method).toBe(-32001);
      expect(errorInfoReason(response)).toBe("TASK_NOT_FOUND");
    }
    const subscribe = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "SubscribeToTask",
        params: { id: "no-such-task" },
      }),
    );
    expect(subscribe.body.error?.code).toBe(-32001);
  });

  it("-32002 TaskNotCancelable for a finished task", async () => {
    const task = await completedTask();
    const response = await rpc("CancelTask", { id: task.id });
    expect(response.error?.code).toBe(-32002);
    expect(errorInfoReason(response)).toBe("TASK_NOT_CANCELABLE");
  });

  it("push notification configs: -32001 for an unknown task, -32602 for a bad config", async () => {
    expect(
      (await rpc("CreateTaskPushNotificationConfig", { taskId: "t", url: "https://x.example/" }))
        .error?.code,
    ).toBe(-32001);
    expect((await rpc("ListTaskPushNotificationConfigs", { taskId: "t" })).error?.code).toBe(
      -32001,
    );
    const inline = await rpc("SendMessage", {
      message: userMessage("hi"),
      configuration: { taskPushNotificationConfig: { url: "not a url" } },
    });
    expect(inline.error?.code).toBe(-32602);
    expect(inline.error?.message).toContain("not a valid absolute URL");
  });

  it("-32004 UnsupportedOperation: subscribing to or messaging a finished task, extended card", async () => {
    const task = await completedTask();
    const subscribe = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "SubscribeToTask", params: { id: task.id } }),
    );
    expect(subscribe.body.error?.code).toBe(-32004);
    const followUp = await rpc("SendMessage", {
      message: userMessage("more", { taskId: task.id }),
    });
    expect(followUp.error?.code).toBe(-32004);
    expect(followUp.error?.message).toContain("has ended");
    expect((await rpc("GetExtendedAgentCard", {})).error?.code).toBe(-32004);
  });

  it("-32005 ContentTypeNotSupported for media types the agent cannot take or produce", async () => {
    const zip = await rpc("SendMessage", {
      message: {
        messageId: "z",
        role: "ROLE_USER",
        parts: [{ raw: btoa("PK"), mediaType: "application/zip" }],
      },
    });
    expect(zip.error?.code).toBe(-32005);
    expect(zip.error?.message).toContain("application/zip");
    const output = await rpc("SendMessage", {
      message: userMessage("hi"),
      configuration: { acceptedOutputModes: ["image/png"] },
    });
    expect(output.error?.code).toBe(-32005);
  });

  it("-32009 VersionNotSupported for an unknown version; no header means 0.3", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "GetTask", params: { id: "x" } });
    const unknown = await post(body, { "A2A-Version": "2.0" });
    expect(unknown.body.error?.code).toBe(-32009);
    expect(unknown.body.error?.message).toContain("Supported versions: 1.0, 0.3");
    const none = await post(body, {});
    expect(none.body.error?.code).toBe(-32601);
    expect(none.body.error?.message).toContain("was read as A2A 0.3: send A2A-Version: 1.0");
    const query = await fetchWorker("/?A2A-Version=1.0", { method: "POST", body });
    expect(((await query.json()) as RpcResponse).error?.code).toBe(-32001);
    expect((await post(body, { "A2A-Version": "1.0.1" })).body.error?.code).toBe(-32001);
  });

  it("-32603 Internal error without internals when a task object's data is unreadable", async () => {
    const task = await completedTask();
    const stub = env.TASKS.get(env.TASKS.idFromName(task.id));
    // Broken behind the object's back; a new instance (it keeps its rows in memory) reads it.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("INSERT INTO history (message_json) VALUES ('{broken')");
    });
    await runInDurableObject(stub, (_instance, state) => state.abort(EXPECTED_CRASH)).catch(
      () => {},
    );
    const response = await rpc("GetTask", { id: task.id });
    expect(response.error).toEqual({ code: -32603, message: "Internal error" });
  });

  it("answers an oversized body with a JSON-RPC error and 413", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: userMessage("x".repeat(1_100_000)) },
    });
    const { status, body } = await post(big);
    expect(status).toBe(413);
    expect(body.error?.code).toBe(-32600);
    expect(body.error?.message).toContain("size limit of 1048576 bytes");
  });

  it("requires the bearer key when A2A_API_KEY is set, but keeps cards public", async () => {
    const keyed = { ...env, A2A_API_KEY: "sekret" };
    const call = async (headers: Record<string, string>, path = "/") => {
      const ctx = createExecutionContext();
      const response = await worker.fetch(
        new Request(`http://harness.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
        }),
        keyed,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return response;
    };
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: "Bearer wrong" },
      { Authorization: "Basic c2VrcmV0" },
    ];
    for (const headers of attempts) {
      const response = await call(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="a2a"');
      expect(((await response.json()) as RpcResponse).error?.message).toContain("Unauthorized");
    }
    const agentPath = await call({}, "/agents/writer/");
    expect(agentPath.status).toBe(401);
    const ok = await call({ Authorization: "Bearer sekret" });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as RpcResponse).error?.code).toBe(-32001);
    const ctx = createExecutionContext();
    const card = await worker.fetch(
      new Request("http://harness.test/.well-known/agent-card.json"),
      keyed,
      ctx,
    );
    expect(card.status).toBe(200);
    expect(((await card.json()) as { securitySchemes?: unknown }).securitySchemes).toBeDefined();
  });
});
