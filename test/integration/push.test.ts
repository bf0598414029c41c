/**
 * Push notifications through the A2A endpoint: config CRUD (v1.0 JSON-RPC and REST, v0.3 JSON-RPC
 * and REST), the SSRF guard, and delivery to a local receiver (test/fake-push) that fails the
 * first attempts: retries with backoff (by the sender's recorded attempt times), order kept per config, headers and bodies in each
 * protocol version's shape, the attempts recorded for the owner (a failure by its kind only,
 * never the receiver's answer); the cap on configs per task.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { PushSender } from "../../src/push/push-sender.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { fetchWorker, rpc, userMessage, v03Message } from "../helpers/a2a.ts";
import { callWorker, closedEnv, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { until } from "../helpers/until.ts";

interface Received {
  at: number;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const hookName = () => `h-${crypto.randomUUID().slice(0, 8)}`;
const hookUrl = (name: string) => `${env.FAKE_PUSH_URL}/hooks/${name}`;
const received = async (name: string) =>
  (await (await fetch(`${env.FAKE_PUSH_URL}/received/${name}`)).json()) as Received[];
const failFirst = (name: string, fail: number, status = 503) =>
  fetch(`${env.FAKE_PUSH_URL}/control/${name}`, {
    method: "POST",
    body: JSON.stringify({ fail, status }),
  });

type Task = { id: string; contextId: string; status: { state: string } };

async function finishedTask(text = "[[reply:done]]"): Promise<Task> {
  const sent = await rpc<{ task: Task }>("SendMessage", { message: userMessage(text) });
  return sent.result?.task as Task;
}

const v03 = <T = unknown>(method: string, params: unknown) => rpc<T>(method, params, { v03: true });

interface PushRecord {
  deliveries: Array<{
    seq: number;
    configId: string;
    state: string;
    status: string;
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
    firstAttemptAt: string | null;
    lastAttemptAt: string | null;
    deliveredAt: string | null;
  }>;
}

const pushRecord = async (taskId: string) =>
  (await (await fetchWorker(`/api/tasks/${taskId}/push`)).json()) as PushRecord;

describe("push notification configs", () => {
  it("creates, gets, lists and deletes configs over v1.0 JSON-RPC", async () => {
    const task = await finishedTask();
    expect(
      (await (await fetchWorker("/.well-known/agent-card.json")).json()) as {
        capabilities: { pushNotifications: boolean };
      },
    ).toMatchObject({ capabilities: { pushNotifications: true } });
    const created = await rpc<Record<string, unknown>>("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      url: "https://hooks.example.com/a2a",
      token: "tok-1",
      authentication: { scheme: "Bearer", credentials: "secret" },
    });
    const id = created.result?.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.result).toEqual({
      id,
      taskId: task.id,
      url: "https://hooks.example.com/a2a",
      token: "tok-1",
      authentication: { scheme: "Bearer", credentials: "secret" },
    });
    const got = await rpc("GetTaskPushNotificationConfig", { taskId: task.id, id });
    expect(got.result).toEqual(created.result);
    // A client-chosen id; setting it again replaces that config.
    await rpc("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      id: "mine",
      url: "https://hooks.example.com/one",
    });
    await rpc("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      id: "mine",
      url: "https://hooks.example.com/two",
    });
    const list = await rpc<{ configs: Array<{ id: string; url: string }> }>(
      "ListTaskPushNotificationConfigs",
      { taskId: task.id },
    );
    expect(list.result?.configs.map((c) => [c.id, c.url])).toEqual([
      [id, "https://hooks.example.com/a2a"],
      ["mine", "https://hooks.example.com/two"],
    ]);
    const deleted = await rpc("DeleteTaskPushNotificationConfig", { taskId: task.id, id });
    expect(deleted.error).toBeUndefined();
    // Idempotent.
    expect(
      (await rpc("DeleteTaskPushNotificationConfig", { taskId: task.id, id })).error,
    ).toBeUndefined();
    expect((await rpc("GetTaskPushNotificationConfig", { taskId: task.id, id })).error?.code).toBe(
      -32001,
    );
    expect(
      (
        await rpc("CreateTaskPushNotificationConfig", {
          taskId: "no-such-task",
          url: "https://x.example/",
        })
      ).error?.code,
    ).toBe(-32001);
    // Bad input: a typed -32602 naming the problem.
    const bad = await rpc("CreateTaskPushNotificationConfig", { taskId: task.id, url: "ftp://x" });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toContain("http and https");
  });

  it("speaks v0.3: set without an id (the task id), get by task id or any id, list, delete", async () => {
    const task = await finishedTask();
    const set = await v03("tasks/pushNotificationConfig/set", {
      taskId: task.id,
      pushNotificationConfig: {
        url: "https://hooks.example.com/v03",
        token: "t03",
        authentication: { schemes: ["Bearer"], credentials: "c03" },
      },
    });
    expect(set.result).toEqual({
      taskId: task.id,
      pushNotificationConfig: {
        id: task.id,
        url: "https://hooks.example.com/v03",
        token: "t03",
        authentication: { schemes: ["Bearer"], credentials: "c03" },
      },
    });
    expect((await v03("tasks/pushNotificationConfig/get", { id: task.id })).result).toEqual(
      set.result,
    );
    // As the reference SDKs: a get naming an id no config has finds the task's default config
    // (the v0.3 kit asks for "default").
    const named = await v03("tasks/pushNotificationConfig/get", {
      id: task.id,
      pushNotificationConfigId: "default",
    });
    expect(named.result).toEqual(set.result);
    expect((await v03("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([
      set.result,
    ]);
    const del = await v03("tasks/pushNotificationConfig/delete", {
      id: task.id,
      pushNotificationConfigId: task.id,
    });
    expect(del).toMatchObject({ result: null });
    expect((await v03("tasks/pushNotificationConfig/list", { id: task.id })).result).toEqual([]);
  });

  it("serves the HTTP+JSON paths of both versions", async () => {
    const task = await finishedTask();
    const base = `/tasks/${task.id}/pushNotificationConfigs`;
    const created = await fetchWorker(base, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ url: "https://hooks.example.com/rest", token: "r1" }),
    });
    expect(created.status).toBe(201);
    const config = (await created.json()) as { id: string; taskId: string };
    expect(config).toMatchObject({ taskId: task.id, url: "https://hooks.example.com/rest" });
    const one = await fetchWorker(`${base}/${config.id}`, { headers: { "A2A-Version": "1.0" } });
    expect(await one.json()).toEqual(config);
    const legacy = await fetchWorker(`/v1${base}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: `tasks/${task.id}/pushNotificationConfigs/legacy`,
        pushNotificationConfig: { id: "legacy", url: "https://hooks.example.com/old" },
      }),
    });
    expect(legacy.status).toBe(201);
    expect(await legacy.json()).toEqual({
      name: `tasks/${task.id}/pushNotificationConfigs/legacy`,
      pushNotificationConfig: { id: "legacy", url: "https://hooks.example.com/old" },
    });
    const list = (await (
      await fetchWorker(base, { headers: { "A2A-Version": "1.0" } })
    ).json()) as {
      configs: Array<{ id: string }>;
    };
    expect(list.configs.map((c) => c.id)).toEqual([config.id, "legacy"]);
    const gone = await fetchWorker(`${base}/${config.id}`, {
      method: "DELETE",
      headers: { "A2A-Version": "1.0" },
    });
    expect(gone.status).toBe(204);
    const missing = await fetchWorker(`${base}/${config.id}`, {
      headers: { "A2A-Version": "1.0" },
    });
    expect(missing.status).toBe(404);
  });

  it("refuses private, loopback and metadata URLs unless WEB_FETCH_ALLOW_PRIVATE=true, naming the local fix", async () => {
    const strict = { ...closedEnv, WEB_FETCH_ALLOW_PRIVATE: "false" } as Env;
    const user = await newUser();
    const call = async (method: string, params: unknown) =>
      (await rpcAs<{ task: Task }>(user.token, method, params, "/", strict)).body;
    const task = (await call("SendMessage", { message: userMessage("[[reply:ok]]") })).result
      ?.task as Task;
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://10.0.0.5/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://localhost/hook",
      "http://intranet/hook",
      "http://printer.lan/hook",
      "http://[::1]/hook",
    ]) {
      const refused = await call("CreateTaskPushNotificationConfig", { taskId: task.id, url });
      expect(refused.error?.code, url).toBe(-32602);
      expect(refused.error?.message, url).toContain("push notification URL refused");
      // Where it may be allowed, the refusal names the local fix.
      if (!url.includes("169.254.169.254"))
        expect(refused.error?.message, url).toContain(
          "for a receiver on your machine, run the harness with npm run dev -- --var WEB_FETCH_ALLOW_PRIVATE:true",
        );
    }
    // Inline with a send: refused before any task is made.
    const messageId = crypto.randomUUID();
    const inline = await call("SendMessage", {
      message: { ...userMessage("[[reply:ok]]"), messageId },
      configuration: { taskPushNotificationConfig: { url: "http://192.168.1.1/hook" } },
    });
    expect(inline.error?.code).toBe(-32602);
    const list = await call("ListTasks", {});
    expect(JSON.stringify(list.result)).not.toContain(messageId);
  });

  it("answers another user's task as not found", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const sent = await rpcAs<{ task: Task }>(alice.token, "SendMessage", {
      message: userMessage("[[reply:mine]]"),
    });
    const taskId = sent.body.result?.task.id as string;
    const create = await rpcAs(bob.token, "CreateTaskPushNotificationConfig", {
      taskId,
      url: "https://hooks.example.com/steal",
    });
    expect(create.body.error?.code).toBe(-32001);
    const list = await rpcAs(bob.token, "ListTaskPushNotificationConfigs", { taskId });
    expect(list.body.error?.code).toBe(-32001);
    const record = await callWorker(`/api/tasks/${taskId}/push`, {
      headers: { Authorization: `Bearer ${bob.token}` },
    });
    expect(record.status).toBe(404);
    const own = await callWorker(`/api/tasks/${taskId}/push`, {
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    expect(own.status).toBe(200);
    const admin = await callWorker(`/api/tasks/${taskId}/push`, {
      headers: { Authorization: "Bearer test-admin-key" },
    });
    expect(admin.status).toBe(200);
  });

  it("refuses a follow-up whose inline config is past MAX_PUSH_CONFIGS_PER_TASK, taking nothing", async () => {
    const hook = hookName();
    const s = await scenario([
      { text: "", toolUses: [{ name: "ask_user", input: { question: "Which day?" } }] },
    ]);
    const first = await rpc<{ task: Task }>("SendMessage", {
      message: userMessage(`plan ${s.marker}`),
    });
    const task = first.result?.task as Task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    // Waiting for input, the task changes state no more: these receivers get nothing.
    for (let i = 0; i < 10; i++) {
      const created = await rpc("CreateTaskPushNotificationConfig", {
        taskId: task.id,
        url: hookUrl(`${hook}-${i}`),
      });
      expect(created.error).toBeUndefined();
    }
    const messageId = crypto.randomUUID();
    const followUp = await rpc("SendMessage", {
      message: { ...userMessage("Friday", { taskId: task.id }), messageId },
      configuration: { taskPushNotificationConfig: { url: hookUrl(`${hook}-10`) } },
    });
    expect(followUp.error?.code).toBe(-32602);
    expect(followUp.error?.message).toContain("a task holds at most 10 push notification configs");
    const now = await rpc<Task & { history?: Array<{ messageId: string }> }>("GetTask", {
      id: task.id,
    });
    expect(now.result?.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(now.result?.history?.map((m) => m.messageId)).not.toContain(messageId);
  });
});

/**
 * Starts `text` as a task whose status goes to the push receiver at `url`; its push record once
 * both deliveries (working, then the end) are no longer pending.
 */
async function settledPushes(text: string, url: string): Promise<PushRecord> {
  const sent = await rpc<{ task: Task }>("SendMessage", {
    message: userMessage(text),
    configuration: { returnImmediately: true, taskPushNotificationConfig: { url } },
  });
  const taskId = sent.result?.task.id as string;
  return until(
    () => pushRecord(taskId),
    (r) => r.deliveries.length === 2 && r.deliveries.every((d) => d.status !== "pending"),
  );
}

describe("push delivery", () => {
  it("v1.0: retries a failing receiver with backoff, keeps order, sends the token and credentials", async () => {
    const hook = hookName();
    await failFirst(hook, 2);
    const slow: Turn[] = [
      { text: "Half of the answer, then the rest.", delayMs: 30, chunkSize: 4 },
    ];
    const s = await scenario(slow);
    const sent = await rpc<{ task: Task }>("SendMessage", {
      message: userMessage(`work ${s.marker}`),
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: {
          url: hookUrl(hook),
          token: "tok-v1",
          authentication: { scheme: "Bearer", credentials: "cred-v1" },
        },
      },
    });
    const taskId = sent.result?.task.id as string;
    const got = await until(
      () => received(hook),
      (r) => r.filter((x) => x.status === 200).length >= 2,
    );
    // Two failures (503), then WORKING delivered, then COMPLETED: never out of order.
    expect(got.map((r) => r.status)).toEqual([503, 503, 200, 200]);
    const bodies = got.map((r) => JSON.parse(r.body) as Record<string, Record<string, unknown>>);
    expect(bodies[0]?.statusUpdate).toMatchObject({
      taskId,
      status: { state: "TASK_STATE_WORKING" },
    });
    expect(bodies[2]).toEqual(bodies[0]);
    expect(bodies[3]?.task).toMatchObject({
      id: taskId,
      status: { state: "TASK_STATE_COMPLETED" },
      artifacts: [{ name: "answer", parts: [{ text: "Half of the answer, then the rest." }] }],
    });
    for (const r of got) {
      expect(r.headers["content-type"]).toBe("application/a2a+json");
      expect(r.headers["x-a2a-notification-token"]).toBe("tok-v1");
      expect(r.headers.authorization).toBe("Bearer cred-v1");
    }
    const record = await pushRecord(taskId);
    // Backoff, by the sender's own clock (backoffMs: base, doubling, up to 20% jitter; its
    // schedule is unit-tested): an attempt goes only once the one before it is past its wait, so
    // the third came at least base + 2 x base after the first, however slow the machine. (Gaps
    // seen at the receiver also carry each request's latency, which load stretches unevenly.)
    const working = record.deliveries[0];
    const base = Number(env.PUSH_RETRY_BASE_MS);
    expect(
      Date.parse(working?.lastAttemptAt ?? "") - Date.parse(working?.firstAttemptAt ?? ""),
    ).toBeGreaterThanOrEqual(base + 2 * base);
    expect(
      record.deliveries.map((d) => [d.state, d.status, d.attempts, d.lastStatus, d.lastError]),
    ).toEqual([
      ["TASK_STATE_WORKING", "delivered", 3, 200, null],
      ["TASK_STATE_COMPLETED", "delivered", 1, 200, null],
    ]);
  });

  it("v0.3: posts the Task (v0.3 shape) with the token header, and on input-required", async () => {
    const hook = hookName();
    const s = await scenario([
      { text: "", toolUses: [{ name: "ask_user", input: { question: "Which day?" } }] },
      { text: "Friday it is." },
    ]);
    const first = await v03<{ id: string; status: { state: string } }>("message/send", {
      message: v03Message(`plan ${s.marker}`),
      configuration: {
        blocking: true,
        pushNotificationConfig: { url: hookUrl(hook), token: "tok-v03" },
      },
    });
    expect(first.result?.status.state).toBe("input-required");
    const taskId = first.result?.id as string;
    await v03("message/send", {
      message: v03Message("Friday", { taskId }),
      configuration: { blocking: true },
    });
    const got = await until(
      () => received(hook),
      (r) => r.some((x) => x.body.includes('"completed"')),
    );
    const states = got.map(
      (r) => (JSON.parse(r.body) as { status: { state: string } }).status.state,
    );
    expect(states).toEqual(["working", "input-required", "submitted", "working", "completed"]);
    const last = JSON.parse(got.at(-1)?.body ?? "{}") as Record<string, unknown>;
    expect(last).toMatchObject({ kind: "task", id: taskId, status: { state: "completed" } });
    for (const r of got) {
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["x-a2a-notification-token"]).toBe("tok-v03");
      expect(r.headers.authorization).toBeUndefined();
    }
  });

  it("gives up after PUSH_MAX_ATTEMPTS and still delivers the next notification", async () => {
    const hook = hookName();
    await failFirst(hook, 4, 500);
    const task = await finishedTask();
    await rpc("CreateTaskPushNotificationConfig", { taskId: task.id, url: hookUrl(hook) });
    // The config came after the task ended: nothing is owed yet. A follow-up on an ended task
    // is refused, so drive a state change on a fresh task instead.
    expect(await received(hook)).toEqual([]);
    const s = await scenario([{ text: "slow", delayMs: 50, chunkSize: 1 }]);
    const record = await settledPushes(`go ${s.marker}`, hookUrl(hook));
    // PUSH_MAX_ATTEMPTS is 4 in the tests: WORKING fails 4 times and is given up; COMPLETED goes.
    // The record says the class of the receiver's answer, not its status.
    expect(
      record.deliveries.map((d) => [d.state, d.status, d.attempts, d.lastStatus, d.lastError]),
    ).toEqual([
      ["TASK_STATE_WORKING", "failed", 4, null, "HTTP 5xx"],
      ["TASK_STATE_COMPLETED", "delivered", 1, 200, null],
    ]);
  });

  it("records an unanswered delivery without the connection error", async () => {
    const s = await scenario([{ text: "slow", delayMs: 50, chunkSize: 1 }]);
    // Nothing listens on 127.0.0.1:9 (the tests let push URLs name loopback).
    const record = await settledPushes(`go ${s.marker}`, "http://127.0.0.1:9/hook");
    expect(record.deliveries.map((d) => [d.status, d.attempts, d.lastStatus, d.lastError])).toEqual(
      Array(2).fill(["failed", 4, null, "no answer (timed out or could not connect)"]),
    );
  });

  it("records a URL the guard refuses at send time as refused, without fetching it", async () => {
    const hook = hookName();
    const task = await finishedTask();
    const strict = { ...env, WEB_FETCH_ALLOW_PRIVATE: "false" } as Env;
    const stub = env.TASKS.get(env.TASKS.idFromName(task.id));
    const deliveries = await runInDurableObject(stub, async (instance) => {
      const rt = (instance as unknown as TaskObject).runtime;
      const config = {
        id: "strict",
        url: hookUrl(hook),
        token: null,
        authScheme: null,
        authCredentials: null,
        protocol: "1.0" as const,
        createdAt: new Date().toISOString(),
      };
      rt.push.put(config);
      rt.push.enqueue(
        "TASK_STATE_WORKING",
        [{ config, body: "{}", contentType: "application/json" }],
        Date.now(),
      );
      // The receiver's loopback URL passed when WEB_FETCH_ALLOW_PRIVATE was on; it is off now.
      const sender = new PushSender(
        rt.push,
        rt.scheduler,
        strict,
        () => task.id,
        () => {},
      );
      await sender.deliverDue();
      return rt.push.deliveries().filter((d) => d.configId === "strict");
    });
    expect(deliveries.map((d) => [d.status, d.attempts, d.lastStatus, d.lastError])).toEqual([
      ["failed", 1, null, "refused: address not allowed"],
    ]);
    expect(await received(hook)).toEqual([]);
  });
});
