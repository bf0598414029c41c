/**
 * Anonymous callers (ALLOW_ANONYMOUS): each conversation is its own principal. Caller B discovers
 * nothing of caller A (ListTasks, sessions, usage, privacy, schedules) and B's model context holds
 * nothing A wrote (workspace files, memory, the handoff); a task is reachable by its id alone;
 * users and anonymous conversations never see each other's tasks.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import { fetchWorker, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { newUser } from "../helpers/as-user.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { sweepAll } from "../helpers/sweep.ts";
import { untilIndexed } from "../helpers/tasks.ts";
import { toolTurn as tool } from "../helpers/turns.ts";

const send = async (text: string, extra: Record<string, unknown> = {}, headers = {}) =>
  (await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(text, extra) }, { headers }))
    .result?.task as WireTask;

const json = async (path: string, init: RequestInit = {}) => {
  const response = await fetchWorker(path, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("anonymous callers", () => {
  it("are one conversation each: B discovers nothing of A and its model reads nothing of A's", async () => {
    const secret = `a-secret-${crypto.randomUUID().slice(0, 8)}`;
    const a = await scenario([
      tool("write_file", { path: "a-notes.md", content: secret }),
      tool("memory_write", { content: `Remember ${secret}` }),
      tool("progress_update", { remaining: [`finish ${secret}`] }),
      tool("read_file", { path: "a-notes.md" }),
      { text: `done ${secret}` },
    ]);
    const taskA = await send(`A's prompt ${secret} ${a.marker}`);
    expect(taskA.status.state).toBe("TASK_STATE_COMPLETED");
    // The server issued A's conversation: 128 random bits; the owner is a hash of it.
    expect(taskA.contextId).toMatch(/^[0-9a-f]{32}$/);
    expect(taskA.metadata?.owner).toBe(await anonymousOwner(taskA.contextId));

    const b = await scenario([tool("list_files", {}), tool("memory_read", {}), { text: "B done" }]);
    const taskB = await send(`B asks ${b.marker}`);
    expect(taskB.contextId).not.toBe(taskA.contextId);
    expect(taskB.metadata?.owner).not.toBe(taskA.metadata?.owner);

    // Nothing of A in any request B's task made: no prompt, file, memory, progress or handoff.
    const seenByB = JSON.stringify(await modelRequests(b.id));
    expect(seenByB).not.toContain(secret);
    expect(seenByB).not.toContain("a-notes.md");
    expect(seenByB).not.toContain(taskA.id);

    // Discovery: ListTasks without a contextId lists nothing; with B's, only B's task.
    const unnamed = await rpc<{ tasks: WireTask[] }>("ListTasks", {});
    expect(unnamed.result?.tasks).toEqual([]);
    const mine = await rpc<{ tasks: WireTask[] }>("ListTasks", { contextId: taskB.contextId });
    expect(mine.result?.tasks.map((t) => t.id)).toEqual([taskB.id]);
    const rest = await json("/tasks", { headers: { "A2A-Version": "1.0" } });
    expect(rest.body.tasks).toEqual([]);
    expect(await json("/api/sessions")).toEqual({ status: 200, body: { sessions: [] } });

    // Who am I: anonymous, a claim that keys nothing.
    expect(await json("/api/me")).toEqual({
      status: 200,
      body: { user: "anonymous", role: "user", via: "anonymous" },
    });
    // Account routes are refused, never served from a shared "anonymous" account.
    for (const [path, method] of [
      ["/api/usage", "GET"],
      ["/api/users/anonymous/data", "GET"],
      ["/api/users/anonymous/data", "DELETE"],
      ["/api/schedules", "GET"],
    ] as const) {
      const refused = await json(path, { method });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body).toMatchObject({
        error: { status: "PERMISSION_DENIED", message: expect.stringContaining("anonymous") },
      });
    }
    // A is still whole: its task and its session.
    const stillA = await rpc<WireTask>("GetTask", { id: taskA.id });
    expect(stillA.result?.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("reach a task by its id alone; a session by its contextId; users and anonymous never meet", async () => {
    const s = await scenario([{ text: "first" }, { text: "second" }, { text: "user's" }]);
    const task = await send(`one ${s.marker}`);
    // By id: GetTask, the event log, push configs.
    expect((await rpc<WireTask>("GetTask", { id: task.id })).result?.id).toBe(task.id);
    const events = await json(`/api/tasks/${task.id}/events`);
    expect(events.status).toBe(200);
    const push = await json(`/api/tasks/${task.id}/push`);
    expect(push.status).toBe(200);
    // Naming the contextId is being in that conversation.
    const second = await send(`two ${s.marker}`, { contextId: task.contextId });
    expect(second.metadata?.owner).toBe(task.metadata?.owner);
    const session = await json(`/api/sessions/${task.contextId}`);
    expect(session.status).toBe(200);
    expect((session.body.tasks as Array<{ id: string }>).map((t) => t.id)).toEqual([
      task.id,
      second.id,
    ]);

    // A user's task is invisible to anonymous callers, and the other way round.
    const user = await newUser();
    const as = { Authorization: `Bearer ${user.token}` };
    const usersTask = await send(`mine ${s.marker}`, {}, as);
    expect((await rpc("GetTask", { id: usersTask.id })).error?.code).toBe(-32001);
    expect((await rpc("CancelTask", { id: usersTask.id })).error?.code).toBe(-32001);
    expect((await json(`/api/tasks/${usersTask.id}/events`)).status).toBe(404);
    expect((await rpc("GetTask", { id: task.id }, { headers: as })).error?.code).toBe(-32001);
    const fromUser = await fetchWorker(`/api/sessions/${task.contextId}`, { headers: as });
    expect(fromUser.status).toBe(404);

    // Erasing the session by its contextId erases that conversation only.
    const erased = await fetchWorker(`/api/sessions/${task.contextId}`, { method: "DELETE" });
    expect(erased.status).toBe(204);
    expect((await rpc("GetTask", { id: task.id })).error?.code).toBe(-32001);
    expect((await rpc("GetTask", { id: usersTask.id }, { headers: as })).result).toBeDefined();
  });

  /** A conversation that leaves a file, memory, progress and a scratchpad note; its owner. */
  async function leaveTraces(secret: string): Promise<{ task: WireTask; owner: string }> {
    const s = await scenario([
      tool("write_file", { path: "secret.txt", content: secret }),
      tool("memory_write", { content: `Remember ${secret}` }),
      tool("progress_update", { remaining: [`finish ${secret}`] }),
      tool("scratch_write", { path: "found.md", content: secret }),
      tool("read_file", { path: "secret.txt" }),
      { text: "saved" },
    ]);
    const task = await send(`keep ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    return { task, owner: await anonymousOwner(task.contextId) };
  }

  /** What is left of `owner`'s data: R2 objects under its prefixes and its workspace entries. */
  async function leftOf(owner: string): Promise<{ r2: string[]; files: string[] }> {
    const r2: string[] = [];
    for (const prefix of [`agents/assistant/users/${owner}/`, `scratch/${owner}/`])
      r2.push(...(await env.FILES.list({ prefix })).objects.map((o) => o.key));
    const listing = await workspaceFor(env.WORKSPACES, "assistant", owner).list();
    return { r2, files: listing.ok ? listing.value.entries.map((e) => e.path) : [] };
  }

  it("an erased conversation takes its workspace, memory, scratchpad and R2 objects with it", async () => {
    const secret = `gone-${crypto.randomUUID().slice(0, 8)}`;
    const { task, owner } = await leaveTraces(secret);
    const before = await leftOf(owner);
    expect(before.files).toEqual(expect.arrayContaining(["secret.txt", "PROGRESS.json"]));
    expect(before.r2.some((key) => key.includes("/memory/"))).toBe(true);
    expect(before.r2.some((key) => key.startsWith("scratch/"))).toBe(true);

    expect(
      (await fetchWorker(`/api/sessions/${task.contextId}`, { method: "DELETE" })).status,
    ).toBe(204);
    expect(await leftOf(owner)).toEqual({ r2: [], files: [] });
    // A follow-up in the erased contextId finds nothing of it.
    const peek = await scenario([
      tool("read_file", { path: "secret.txt" }),
      tool("memory_read", {}),
      tool("scratch_list", {}),
      { text: "nothing" },
    ]);
    await send(`peek ${peek.marker}`, { contextId: task.contextId });
    const seen = JSON.stringify(await modelRequests(peek.id));
    expect(seen).not.toContain(secret);
  });

  it("retention erases an anonymous conversation ANONYMOUS_RETENTION_DAYS after its last task", async () => {
    const { task, owner } = await leaveTraces(`old-${crypto.randomUUID().slice(0, 8)}`);
    expect((await leftOf(owner)).r2).not.toEqual([]);
    // The sweep reads the index, which the task writes after its answer.
    await untilIndexed(task.id, "TASK_STATE_COMPLETED");
    // Within the retention the conversation stays (other files' anonymous tasks in the shared
    // index may expire by then: the count is not this test's).
    const day = 86_400_000;
    await sweepAll(env, Date.now() + 29 * day);
    expect((await leftOf(owner)).r2).not.toEqual([]);
    expect(await sweepAll(env, Date.now() + 31 * day)).toBeGreaterThanOrEqual(1);
    expect(await leftOf(owner)).toEqual({ r2: [], files: [] });
  });
});
