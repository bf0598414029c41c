/**
 * A conversation the server opens for a task has no object while that task is its only one: the
 * task holds it alone and keeps its turns. The first join of a second task makes the object, which
 * asks the first task to hand the conversation over; order, history and release hold as with an
 * object from the start.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { contextIdFor, contextKey, firstTaskOf } from "../../src/conversations/join.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { answerText, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { allCompleted, openAndFollow } from "../helpers/queued-tasks.ts";
import { getTask, startTask } from "../helpers/tasks.ts";
import { textToolTurn as tool } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

const send = async (text: string, extra: Record<string, unknown>, config = {}) =>
  (
    await rpc<{ task: WireTask }>("SendMessage", {
      message: userMessage(text, extra),
      configuration: config,
    })
  ).result?.task as WireTask;

const taskStub = (id: string) => env.TASKS.get(env.TASKS.idFromName(id));
const keyOf = (task: WireTask) =>
  contextKey(task.metadata?.owner as string, "assistant", task.contextId);
const conversationOf = (task: WireTask) => env.CONTEXTS.get(env.CONTEXTS.idFromName(keyOf(task)));

/** The conversation's turns once it holds `n` (a task releases it just after it answers). */
const turnsOf = (task: WireTask, n: number) =>
  until(
    async () => (await conversationOf(task).turns()) as Array<{ role: string }>,
    (turns) => turns.length >= n,
  );

/** The tables an object's SQLite holds (none but the runtime's own for one never written). */
const tablesOf = (stub: DurableObjectStub) =>
  runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((r) => r.name)
      .filter((name) => !name.startsWith("_") && name !== "sqlite_sequence"),
  );

const linkOf = (taskId: string) =>
  runInDurableObject(taskStub(taskId), (instance) =>
    (instance as unknown as TaskObject).runtime.contextLink.get(),
  );

describe("conversations of one task", () => {
  it("have no object; the second task's join makes it with the first task's turns", async () => {
    const s = await scenario([{ text: "Nice to meet you, Ada." }, { text: "Ada." }]);
    const first = await send(`My name is Ada. ${s.marker}`, {});
    expect(first.status.state).toBe("TASK_STATE_COMPLETED");
    // The conversation is named after its first task.
    expect(first.contextId).toBe(contextIdFor(first.id));
    expect(firstTaskOf(first.contextId)).toBe(first.id);
    expect(await tablesOf(conversationOf(first))).toEqual([]);
    expect(await linkOf(first.id)).toMatchObject({ alone: true, state: "active" });

    const second = await send(`What is my name? ${s.marker}`, { contextId: first.contextId });
    expect(second.status.state).toBe("TASK_STATE_COMPLETED");
    const requests = await modelRequests(s.id);
    expect(requests.map((r) => r.body.messages.length)).toEqual([1, 3]);
    expect(JSON.stringify(requests[1]?.body.messages[1]?.content)).toContain("Nice to meet you");
    expect(await linkOf(first.id)).toMatchObject({ alone: false, state: "released" });
    // The first task's turns once, then the second's.
    const turns = await turnsOf(first, 4);
    expect(turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("a second task waits while the first works alone, then runs after it, each turn kept once", async () => {
    const s = await scenario([
      { text: "first answer", chunkSize: 1, delayMs: 150 },
      { text: "second answer" },
      { text: "third answer" },
    ]);
    const { first, second } = await openAndFollow(s.marker);
    expect(first.status.state).toBe("TASK_STATE_WORKING");
    expect(second.status.state).toBe("TASK_STATE_SUBMITTED");
    const done = await allCompleted([first, second]);
    expect(done.map(answerText)).toEqual(["first answer", "second answer"]);
    const third = await send(`third ${s.marker}`, { contextId: first.contextId });
    expect(answerText(third)).toBe("third answer");
    const requests = await modelRequests(s.id);
    expect(requests.map((r) => r.body.messages.length)).toEqual([1, 3, 5]);
    expect(await turnsOf(third, 6)).toHaveLength(6);
  });

  it("a handover asked again hands the same turns, applied once; a stranger's key gets nothing", async () => {
    const s = await scenario([{ text: "one" }, { text: "two" }]);
    const first = await send(`alone ${s.marker}`, {});
    const key = keyOf(first);
    const once = await taskStub(first.id).handOver({ key });
    const again = await taskStub(first.id).handOver({ key });
    expect(once).toMatchObject({ found: true, held: false, upto: 2 });
    expect(again).toEqual(once);
    // The object, made now by a second task, asks a third time: the turns still land once.
    await send(`second ${s.marker}`, { contextId: first.contextId });
    expect(await turnsOf(first, 4)).toHaveLength(4);

    const wrongKey = contextKey(first.metadata?.owner as string, "writer", first.contextId);
    expect(await taskStub(first.id).handOver({ key: wrongKey })).toEqual({ found: false });
    // A task id nobody created: nothing found, nothing written.
    const nobody = crypto.randomUUID();
    expect(await taskStub(nobody).handOver({ key })).toEqual({ found: false });
    expect(await tablesOf(taskStub(nobody))).toEqual([]);
  });

  it("a canceled first task hands over what it had; the conversation goes on", async () => {
    const s = await scenario([{ text: "ok", chunkSize: 1, delayMs: 400 }, { text: "ok" }]);
    const first = await startTask(`cancel me ${s.marker}`);
    expect((await rpc<WireTask>("CancelTask", { id: first.id })).result?.status.state).toBe(
      "TASK_STATE_CANCELED",
    );
    const second = await send(`go on ${s.marker}`, { contextId: first.contextId });
    expect(answerText(second)).toBe("ok");
    const requests = await modelRequests(s.id);
    const last = requests.at(-1)?.body.messages ?? [];
    expect(JSON.stringify(last[0]?.content)).toContain("cancel me");
    expect(JSON.stringify(last.at(-1)?.content)).toContain("go on");
  });

  it("a first task waiting for input hands its turns over; answered later, it runs after the second", async () => {
    const s = await scenario([
      tool("ask_user", { question: "Which day?" }),
      ...Array.from({ length: 6 }, () => ({ text: "ok" })),
    ]);
    const first = await send(`plan it ${s.marker}`, {});
    expect(first.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const second = await send(`meanwhile ${s.marker}`, { contextId: first.contextId });
    expect(second.status.state).toBe("TASK_STATE_COMPLETED");
    expect(JSON.stringify((await modelRequests(s.id))[1]?.body.messages[0]?.content)).toContain(
      "plan it",
    );
    expect(await linkOf(first.id)).toMatchObject({ alone: false, state: "released" });
    const answered = (
      await rpc<{ task: WireTask }>("SendMessage", {
        message: userMessage("Friday", { taskId: first.id }),
      })
    ).result?.task as WireTask;
    expect(answered.status.state).toBe("TASK_STATE_COMPLETED");
    // Its answer's request carries the second task's turns after the question's result.
    const last = JSON.stringify((await modelRequests(s.id)).at(-1)?.body.messages);
    expect(last).toContain("The user answered: Friday");
    expect(last).toContain("meanwhile");
  });

  it("a follow-up its lone task cannot take fails that task; the conversation goes on", async () => {
    const s = await scenario([tool("ask_user", { question: "Which day?" }), { text: "ok" }]);
    const first = await send(`plan it ${s.marker}`, {});
    expect(first.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    // Whatever fails while the task takes its answer in (a row too large to store, say).
    await runInDurableObject(taskStub(first.id), (instance) => {
      (instance as unknown as TaskObject).runtime.pending.set = () => {
        throw new Error("string or blob too big: SQLITE_TOOBIG");
      };
    });
    const answered = (
      await rpc<{ task: WireTask }>("SendMessage", {
        message: userMessage("Friday", { taskId: first.id }),
      })
    ).result?.task as WireTask;
    expect(answered.status.state).toBe("TASK_STATE_FAILED");
    const next = await send(`next ${s.marker}`, { contextId: first.contextId });
    expect(next.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("a lone task cut off by a crash resumes alone, and the next task still gets its turns", async () => {
    const s = await scenario([
      { text: "first answer", chunkSize: 1, delayMs: 100 },
      { text: "second answer" },
    ]);
    const first = await startTask(`crash me ${s.marker}`);
    expect(first.status.state).toBe("TASK_STATE_WORKING");
    // Its in-memory state and in-flight work are lost; its storage is what it wrote.
    await runInDurableObject(taskStub(first.id), (_instance, state) => {
      state.abort("simulated crash");
    }).catch(() => {});
    const done = await until(
      () => getTask(first.id),
      (t) => t.status.state === "TASK_STATE_COMPLETED",
    );
    expect(answerText(done)).toBe("first answer");
    expect(await linkOf(first.id)).toMatchObject({ alone: true });
    const second = await send(`after ${s.marker}`, { contextId: first.contextId });
    expect(answerText(second)).toBe("second answer");
    const messages = JSON.stringify((await modelRequests(s.id)).at(-1)?.body.messages);
    expect(messages).toContain("crash me");
    expect(messages).toContain("first answer");
  });
});
