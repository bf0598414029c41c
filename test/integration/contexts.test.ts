/**
 * Conversations: tasks sharing a contextId see the earlier turns, run one at a time in arrival
 * order (later ones wait as submitted), and a canceled waiting task leaves no trace.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { contextKey } from "../../src/conversations/join.ts";
import { taskIdFor } from "../../src/platform/ids.ts";
import { JOIN_JOB } from "../../src/task/conversation/context-membership.ts";
import { beginTask } from "../../src/task/incoming.ts";
import { taskSchema } from "../../src/task/store/schema.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { answerText, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { allCompleted, openAndFollow } from "../helpers/queued-tasks.ts";
import { getTask, startTask, untilState } from "../helpers/tasks.ts";
import { until } from "../helpers/until.ts";

const send = async (
  text: string,
  extra: Record<string, unknown>,
  config: Record<string, unknown> = {},
  path = "/",
) =>
  (
    await rpc<{ task: WireTask }>(
      "SendMessage",
      { message: userMessage(text, extra), configuration: config },
      { path },
    )
  ).result?.task as WireTask;

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("");

describe("contexts", () => {
  it("a new task in an existing context sees the earlier turns", async () => {
    const s = await scenario([{ text: "Nice to meet you, Ada." }]);
    const first = await send(`My name is Ada. ${s.marker}`, {});
    expect(first.status.state).toBe("TASK_STATE_COMPLETED");
    const second = await send(`What is my name? ${s.marker}`, { contextId: first.contextId });
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    const requests = await modelRequests(s.id);
    const messages = requests[1]?.body.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(textOf(messages[0]?.content)).toContain("My name is Ada.");
    expect(textOf(messages[1]?.content)).toBe("Nice to meet you, Ada.");
    expect(textOf(messages[2]?.content)).toContain("What is my name?");
  });

  it("runs concurrent sends into one context one at a time, in order, each seeing the previous", async () => {
    // The scripted turn index is the number of assistant messages, which grows with the history.
    const s = await scenario(
      Array.from({ length: 5 }, () => ({ text: "ok", chunkSize: 1, delayMs: 150 })),
    );
    const contextId = crypto.randomUUID();
    const tasks: WireTask[] = [];
    for (const n of [1, 2, 3]) tasks.push(await startTask(`step ${n} ${s.marker}`, { contextId }));
    expect(tasks.map((t) => t.status.state)).toEqual([
      "TASK_STATE_WORKING",
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_SUBMITTED",
    ]);
    expect(tasks[1]?.status.message?.parts[0]?.text).toContain("Waiting for the previous task");
    let maxWorking = 0;
    const done = await until(
      async () => {
        const states = await Promise.all(tasks.map((t) => getTask(t.id)));
        maxWorking = Math.max(
          maxWorking,
          states.filter((t) => t.status.state === "TASK_STATE_WORKING").length,
        );
        return states;
      },
      (states) => states.every((t) => t.status.state === "TASK_STATE_COMPLETED"),
    );
    // Never two at once (a loaded machine's polls may fall between the tasks and see none);
    // the request sizes below show that each ran after the one before.
    expect(maxWorking).toBeLessThanOrEqual(1);
    expect(done.map(answerText)).toEqual(["ok", "ok", "ok"]);
    const requests = await modelRequests(s.id);
    expect(requests.map((r) => r.body.messages.length)).toEqual([1, 3, 5]);
    expect(textOf(requests[2]?.body.messages.at(-1)?.content)).toContain("step 3");
    expect(textOf(requests[2]?.body.messages[2]?.content)).toContain("step 2");
  });

  it("a conversation the server opened is held at once; the next message in it waits its turn", async () => {
    const s = await scenario([
      { text: "first answer", chunkSize: 1, delayMs: 150 },
      { text: "second answer" },
    ]);
    // No contextId: the task holds its new conversation alone, with no context object; the next
    // task's join makes the object, which queues the working first task ahead of it.
    const { first, second } = await openAndFollow(s.marker);
    expect(first.status.state).toBe("TASK_STATE_WORKING");
    expect(second.status.state).toBe("TASK_STATE_SUBMITTED");
    expect(second.status.message?.parts[0]?.text).toContain("Waiting for the previous task");
    const done = await allCompleted([first, second]);
    expect(done.map(answerText)).toEqual(["first answer", "second answer"]);
    const requests = await modelRequests(s.id);
    expect(requests.map((r) => r.body.messages.length)).toEqual([1, 3]);
    expect(textOf(requests[1]?.body.messages[1]?.content)).toBe("first answer");
  });

  it("concurrent first sends into a brand-new context also serialize", async () => {
    const s = await scenario(
      Array.from({ length: 5 }, () => ({ text: "k", chunkSize: 1, delayMs: 120 })),
    );
    const contextId = crypto.randomUUID();
    const sent = await Promise.all(
      [1, 2, 3, 4].map((n) => startTask(`parallel ${n} ${s.marker}`, { contextId })),
    );
    expect(sent.filter((t) => t.status.state === "TASK_STATE_WORKING")).toHaveLength(1);
    await allCompleted(sent);
    expect(
      (await modelRequests(s.id)).map((r) => r.body.messages.length).sort((a, b) => a - b),
    ).toEqual([1, 3, 5, 7]);
  });

  it("a canceled waiting task never runs and leaves no turns; the next one proceeds", async () => {
    // A runs long enough (about 0.8 s) that B is still waiting when it is canceled, even on a
    // loaded machine; a B that was already activated would hand its message to the conversation.
    const s = await scenario(
      Array.from({ length: 3 }, () => ({ text: "done", chunkSize: 1, delayMs: 200 })),
    );
    const contextId = crypto.randomUUID();
    const a = await startTask(`A ${s.marker}`, { contextId });
    const b = await startTask(`B ${s.marker}`, { contextId });
    const c = await startTask(`C ${s.marker}`, { contextId });
    expect((await rpc<WireTask>("CancelTask", { id: b.id })).result?.status.state).toBe(
      "TASK_STATE_CANCELED",
    );
    await untilState(c.id, "TASK_STATE_COMPLETED");
    expect((await getTask(a.id)).status.state).toBe("TASK_STATE_COMPLETED");
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => textOf(r.body.messages.at(-1)?.content))).toEqual([
      expect.stringContaining("A "),
      expect.stringContaining("C "),
    ]);
    const stub = env.CONTEXTS.get(
      env.CONTEXTS.idFromName(contextKey(await anonymousOwner(contextId), "assistant", contextId)),
    );
    // C hands its turns to the conversation just after it completes.
    const turns = await until(
      async () => (await stub.turns()) as Array<{ content: unknown }>,
      (all) => all.length >= 4,
    );
    expect(turns.map((t) => textOf(t.content))).toEqual([
      expect.stringContaining("A "),
      "done",
      expect.stringContaining("C "),
      "done",
    ]);
  });

  it("keeps one conversation per agent even when the contextId is the same", async () => {
    const s = await scenario([{ text: "separate" }]);
    const contextId = crypto.randomUUID();
    await send(`to writer ${s.marker}`, { contextId }, {}, "/agents/writer/");
    await send(`to researcher ${s.marker}`, { contextId }, {}, "/agents/researcher/");
    const requests = await modelRequests(s.id);
    expect(requests.map((r) => r.body.messages.length)).toEqual([1, 1]);
  });

  it("a message the conversation cannot take fails its task, and the next message runs at once", async () => {
    const s = await scenario([{ text: "first" }, { text: "third" }]);
    const contextId = crypto.randomUUID();
    const first = await send(`one ${s.marker}`, { contextId });
    expect(first.status.state).toBe("TASK_STATE_COMPLETED");
    // The second message's task: its id derives from the owner, agent and messageId. Any failure
    // while it takes the conversation in (the attack round's was SQLITE_TOOBIG) is injected.
    const messageId = crypto.randomUUID();
    const taskId = await taskIdFor(await anonymousOwner(contextId), "assistant", messageId);
    await runInDurableObject(env.TASKS.get(env.TASKS.idFromName(taskId)), (instance) => {
      (instance as unknown as TaskObject).runtime.conversation.append = () => {
        throw new Error("string or blob too big: SQLITE_TOOBIG");
      };
    });
    const second = await send(`two ${s.marker}`, { contextId, messageId });
    expect(second.id).toBe(taskId);
    expect(second.status.state).toBe("TASK_STATE_FAILED");
    expect(second.status.message?.parts[0]?.text).toContain(
      "could not be added to its conversation",
    );
    // Cancelling it changes nothing; the conversation takes the next message at once.
    expect((await rpc("CancelTask", { id: taskId })).error?.code).toBe(-32002);
    const third = await send(`three ${s.marker}`, { contextId });
    expect(third.status.state).toBe("TASK_STATE_COMPLETED");
    const requests = await modelRequests(s.id);
    expect(requests.map((r) => r.body.messages.map((m) => m.role))).toEqual([
      ["user"],
      ["user", "assistant", "user"],
    ]);
  });

  it("a task whose join answer was lost releases the conversation when it is canceled", async () => {
    const s = await scenario([{ text: "ok" }, { text: "ok" }]);
    const contextId = crypto.randomUUID();
    await send(`one ${s.marker}`, { contextId });
    const owner = await anonymousOwner(contextId);
    const taskId = crypto.randomUUID();
    // The task asked to join; the conversation queued it (and holds it, being idle), but the
    // answer never came back (a dropped connection): submitted, not joined, its join retried later.
    await runInDurableObject(
      env.TASKS.get(env.TASKS.idFromName(taskId)),
      async (instance, state) => {
        taskSchema(state.storage.sql).ensure(); // what creating the task makes first
        const rt = (instance as unknown as TaskObject).runtime;
        beginTask(
          rt,
          {
            taskId,
            contextId,
            agent: "assistant",
            owner,
            traceId: "c".repeat(32),
            message: { messageId: `m-${taskId}`, role: "ROLE_USER", parts: [{ text: "two" }] },
          },
          "assistant",
          { name: "test-model", source: "test" },
        );
        await rt.scheduler.schedule(JOIN_JOB, "context", Date.now() + 600_000);
      },
    );
    const conversation = env.CONTEXTS.get(
      env.CONTEXTS.idFromName(contextKey(owner, "assistant", contextId)),
    );
    // The first task hands the conversation back just after it answers.
    await until(
      async () => (await conversation.turns()) as unknown[],
      (turns) => turns.length >= 2,
    );
    expect(((await conversation.join({ taskId, after: 0 })) as { active: boolean }).active).toBe(
      true,
    );
    expect((await rpc<WireTask>("CancelTask", { id: taskId })).result?.status.state).toBe(
      "TASK_STATE_CANCELED",
    );
    const third = await send(`three ${s.marker}`, { contextId }, {}, "/");
    await untilState(third.id, "TASK_STATE_COMPLETED");
  });
});
