/**
 * A lookup creates nothing: every route that names a task (both JSON-RPC generations, both REST
 * generations, the task record routes, a follow-up message) answers "not found" for a task id
 * nobody created, and the task object it reached holds no tables afterwards. The same for a
 * workspace read and a principal's usage that were never written, and for a task, conversation,
 * workspace and user erased: erasure leaves no tables behind. Creating still works (every other
 * suite creates tasks).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { contextKey } from "../../src/conversations/join.ts";
import { stubByName } from "../../src/platform/object-stub.ts";
import { userObject } from "../../src/users/limits.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { workspaceKey } from "../../src/workspace/keys.ts";
import { fetchWorker, postRpc, postRpcV03, userMessage, v03Message } from "../helpers/a2a.ts";
import { until } from "../helpers/until.ts";

type Namespace = "TASKS" | "CONTEXTS" | "WORKSPACES" | "USERS";

/** The tables of a database, the runtime's own bookkeeping left out. */
const tables = (_instance: unknown, state: DurableObjectState): string[] =>
  state.storage.sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
    .toArray()
    .map((r) => r.name)
    .filter((n) => !n.startsWith("_cf_") && !n.startsWith("__") && !n.startsWith("sqlite_"));

/** The tables the object named `name` in namespace `ns` holds. */
function tablesOf(ns: Namespace, name: string): Promise<string[]> {
  switch (ns) {
    case "TASKS":
      return runInDurableObject(stubByName(env.TASKS, name), tables);
    case "CONTEXTS":
      return runInDurableObject(stubByName(env.CONTEXTS, name), tables);
    case "WORKSPACES":
      return runInDurableObject(stubByName(env.WORKSPACES, name), tables);
    case "USERS":
      return runInDurableObject(stubByName(env.USERS, name), tables);
  }
}

const V1 = { "A2A-Version": "1.0" };
const HOOK = "https://hooks.example.com/ghost";

/** A request that names task `id`; its whole answer is read. */
type Lookup = (id: string) => Promise<Response>;

const rest =
  (method: string, path: (id: string) => string, headers: HeadersInit = V1, body?: unknown) =>
  (id: string) =>
    fetchWorker(path(id), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

const LOOKUPS: Record<string, Lookup> = {
  GetTask: (id) => postRpc("/", "GetTask", { id }),
  CancelTask: (id) => postRpc("/", "CancelTask", { id }),
  SubscribeToTask: (id) => postRpc("/", "SubscribeToTask", { id }),
  CreateTaskPushNotificationConfig: (id) =>
    postRpc("/", "CreateTaskPushNotificationConfig", { taskId: id, url: HOOK }),
  GetTaskPushNotificationConfig: (id) =>
    postRpc("/", "GetTaskPushNotificationConfig", { taskId: id, id: "cfg" }),
  ListTaskPushNotificationConfigs: (id) =>
    postRpc("/", "ListTaskPushNotificationConfigs", { taskId: id }),
  DeleteTaskPushNotificationConfig: (id) =>
    postRpc("/", "DeleteTaskPushNotificationConfig", { taskId: id, id: "cfg" }),
  "SendMessage (follow-up)": (id) =>
    postRpc("/", "SendMessage", { message: userMessage("hi", { taskId: id }) }),
  "SendStreamingMessage (follow-up)": (id) =>
    postRpc("/", "SendStreamingMessage", { message: userMessage("hi", { taskId: id }) }),
  "tasks/get": (id) => postRpcV03("/", "tasks/get", { id }),
  "tasks/cancel": (id) => postRpcV03("/", "tasks/cancel", { id }),
  "tasks/resubscribe": (id) => postRpcV03("/", "tasks/resubscribe", { id }),
  "tasks/pushNotificationConfig/set": (id) =>
    postRpcV03("/", "tasks/pushNotificationConfig/set", {
      taskId: id,
      pushNotificationConfig: { url: HOOK },
    }),
  "tasks/pushNotificationConfig/get": (id) =>
    postRpcV03("/", "tasks/pushNotificationConfig/get", { id }),
  "tasks/pushNotificationConfig/list": (id) =>
    postRpcV03("/", "tasks/pushNotificationConfig/list", { id }),
  "tasks/pushNotificationConfig/delete": (id) =>
    postRpcV03("/", "tasks/pushNotificationConfig/delete", { id, pushNotificationConfigId: "c" }),
  "message/send (follow-up)": (id) =>
    postRpcV03("/", "message/send", { message: v03Message("hi", { taskId: id }) }),
  "message/stream (follow-up)": (id) =>
    postRpcV03("/", "message/stream", { message: v03Message("hi", { taskId: id }) }),
  "GET /tasks/:id": rest("GET", (id) => `/tasks/${id}`),
  "POST /tasks/:id:cancel": rest("POST", (id) => `/tasks/${id}:cancel`),
  "GET /tasks/:id:subscribe": rest("GET", (id) => `/tasks/${id}:subscribe`),
  "GET /tasks/:id/pushNotificationConfigs": rest(
    "GET",
    (id) => `/tasks/${id}/pushNotificationConfigs`,
  ),
  "POST /tasks/:id/pushNotificationConfigs": rest(
    "POST",
    (id) => `/tasks/${id}/pushNotificationConfigs`,
    { ...V1, "content-type": "application/json" },
    { url: HOOK },
  ),
  "GET /tasks/:id/pushNotificationConfigs/:c": rest(
    "GET",
    (id) => `/tasks/${id}/pushNotificationConfigs/cfg`,
  ),
  "DELETE /tasks/:id/pushNotificationConfigs/:c": rest(
    "DELETE",
    (id) => `/tasks/${id}/pushNotificationConfigs/cfg`,
  ),
  "POST /message:send (follow-up)": (id) =>
    rest("POST", () => "/message:send", V1, { message: userMessage("hi", { taskId: id }) })(id),
  "GET /v1/tasks/:id": rest("GET", (id) => `/v1/tasks/${id}`, {}),
  "POST /v1/tasks/:id:cancel": rest("POST", (id) => `/v1/tasks/${id}:cancel`, {}),
  "GET /v1/tasks/:id:subscribe": rest("GET", (id) => `/v1/tasks/${id}:subscribe`, {}),
  "GET /v1/tasks/:id/pushNotificationConfigs": rest(
    "GET",
    (id) => `/v1/tasks/${id}/pushNotificationConfigs`,
    {},
  ),
  "POST /v1/tasks/:id/pushNotificationConfigs": (id) =>
    rest(
      "POST",
      () => `/v1/tasks/${id}/pushNotificationConfigs`,
      {},
      {
        name: `tasks/${id}/pushNotificationConfigs/c`,
        pushNotificationConfig: { id: "c", url: HOOK },
      },
    )(id),
  "DELETE /v1/tasks/:id/pushNotificationConfigs/:c": rest(
    "DELETE",
    (id) => `/v1/tasks/${id}/pushNotificationConfigs/c`,
    {},
  ),
  "POST /v1/message:send (follow-up)": (id) =>
    rest(
      "POST",
      () => "/v1/message:send",
      { "content-type": "application/json" },
      {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          content: [{ text: "hi" }],
          taskId: id,
        },
      },
    )(id),
  "GET /api/tasks/:id/events": rest("GET", (id) => `/api/tasks/${id}/events`, {}),
  "GET /api/tasks/:id/push": rest("GET", (id) => `/api/tasks/${id}/push`, {}),
};

describe("a lookup of a task nobody created", () => {
  it("answers not found on every route and leaves the task object without tables", async () => {
    const left: Record<string, string[]> = {};
    for (const [route, lookup] of Object.entries(LOOKUPS)) {
      const id = crypto.randomUUID();
      const response = await lookup(id);
      const text = await response.text();
      // REST: 404; JSON-RPC: TaskNotFoundError (-32001), in JSON or in the SSE stream.
      expect(response.status < 500, `${route}: ${response.status} ${text}`).toBe(true);
      expect(
        response.status === 404 || text.includes("-32001"),
        `${route}: ${response.status} ${text}`,
      ).toBe(true);
      const tables = await tablesOf("TASKS", id);
      if (tables.length > 0) left[route] = tables;
    }
    expect(left).toEqual({});
  });
});

describe("other objects read before anything was written", () => {
  it("a workspace read (list, read, grep, checkpoints) creates no tables", async () => {
    const owner = `ghost-${crypto.randomUUID()}`;
    const ws = workspaceFor(env.WORKSPACES, "writer", owner);
    expect(await ws.list()).toEqual({ ok: true, value: { entries: [], total: 0 } });
    expect((await ws.read("notes.md")).ok).toBe(false);
    expect(await ws.grep("x")).toMatchObject({ ok: true });
    expect(await ws.checkpointList()).toEqual({ ok: true, value: { checkpoints: [] } });
    expect(await ws.taskCheckpoint("t")).toBeNull();
    expect(await tablesOf("WORKSPACES", workspaceKey("writer", owner))).toEqual([]);
  });

  it("a principal's usage creates no tables", async () => {
    const key = `user:ghost-${crypto.randomUUID()}`;
    expect(await userObject(env, key).usage()).toMatchObject({ dayTokens: 0, monthTokens: 0 });
    expect(await tablesOf("USERS", key)).toEqual([]);
  });
});

describe("erasure", () => {
  it("leaves no tables in the task, conversation, workspace and user objects", async () => {
    const sent = (await (
      await postRpc("/", "SendMessage", { message: userMessage("[[reply:kept]]") })
    ).json()) as { result: { task: { id: string; contextId: string } } };
    const { id, contextId } = sent.result.task;
    // A second task makes the conversation's object (a conversation of one task has none).
    await postRpc("/", "SendMessage", { message: userMessage("[[reply:also]]", { contextId }) });
    expect(await tablesOf("TASKS", id)).toContain("task");
    const task = stubByName(env.TASKS, id);
    const owner = await runInDurableObject(
      task,
      (instance) =>
        (instance as unknown as { runtime: { store: { record: { owner: string } } } }).runtime.store
          .record.owner,
    );
    expect(await task.erase({ owner: null })).toBe(true);
    expect(await tablesOf("TASKS", id)).toEqual([]);
    // Erased, the object still answers "not found" and writes nothing.
    expect((await task.get({ owner })).ok).toBe(false);
    expect(await tablesOf("TASKS", id)).toEqual([]);

    const conversation = contextKey(owner, "assistant", contextId);
    await until(
      () => tablesOf("CONTEXTS", conversation),
      (tables) => tables.includes("turns"),
    );
    await stubByName(env.CONTEXTS, conversation).erase();
    expect(await tablesOf("CONTEXTS", conversation)).toEqual([]);

    const wsOwner = `erased-${crypto.randomUUID()}`;
    const ws = workspaceFor(env.WORKSPACES, "writer", wsOwner);
    expect((await ws.write("a.md", "x", { taskId: "t" })).ok).toBe(true);
    const wsName = workspaceKey("writer", wsOwner);
    expect(await tablesOf("WORKSPACES", wsName)).toContain("files");
    await stubByName(env.WORKSPACES, wsName).erase();
    expect(await tablesOf("WORKSPACES", wsName)).toEqual([]);

    const key = `user:erased-${crypto.randomUUID()}`;
    const counters = userObject(env, key);
    const ask = { perMinute: 10, extra: 0, ttlMs: 20_000 };
    expect(await counters.lease(crypto.randomUUID(), ask)).toMatchObject({ ok: true });
    expect(await tablesOf("USERS", key)).toContain("admissions");
    await counters.erase();
    expect(await tablesOf("USERS", key)).toEqual([]);
  });
});
