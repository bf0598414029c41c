/**
 * Human in the loop through the A2A endpoint: `ask_user` pauses the task in input-required with
 * the question (and a form), a follow-up on the same task resumes it with the answer; tool
 * approvals (frontmatter `tools.requireApproval`) run or refuse the call on the person's word.
 * Over v1.0 and v0.3, blocking and streaming; the wait survives the object restarting.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import {
  answerText,
  postRpc,
  postRpcV03,
  rpc,
  sendV03,
  userMessage,
  v03Message,
  type WireTask,
} from "../helpers/a2a.ts";
import { restoreScenario } from "../helpers/approval.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { collectSse } from "../helpers/sse.ts";
import { askChoice, textToolTurn as tool } from "../helpers/turns.ts";

type Part = { text?: string; data?: Record<string, unknown>; kind?: string };
type StatusTask = WireTask & { status: { state: string; message?: { parts: Part[] } } };

const send = async (message: Record<string, unknown>, path = "/") =>
  (await rpc<{ task: StatusTask }>("SendMessage", { message }, { path })).result
    ?.task as StatusTask;

/** The tool_result texts of the last request the model saw. */
async function lastToolResults(scenarioId: string): Promise<string[]> {
  const last = (await modelRequests(scenarioId)).at(-1);
  const content = last?.body.messages.find(
    (m) =>
      Array.isArray(m.content) &&
      (m.content as Array<{ type: string }>).some((b) => b.type === "tool_result"),
  )?.content as Array<{ type: string; content?: string; is_error?: boolean }> | undefined;
  return (content ?? [])
    .filter((b) => b.type === "tool_result")
    .map((b) => `${b.is_error ? "ERROR " : ""}${b.content ?? ""}`);
}

/**
 * A blocking v0.3 `message/send` of one part (text, or data when `content` is an object) on task
 * `taskId` when given, to the agent at `path`; its JSON-RPC answer.
 */
const v03Send = <T>(content: string | Record<string, unknown>, taskId?: string, path = "/") =>
  sendV03<T>(v03Message(content, taskId ? { taskId } : {}), { path });

describe("ask_user", () => {
  it("pauses with the question and a form; the follow-up's form values resume the task (v1.0)", async () => {
    const s = await scenario([
      tool(
        "ask_user",
        askChoice("Which colour should the report use?", "colour", ["blue", "green"]),
      ),
      { text: "Using blue." },
    ]);
    const paused = await send(userMessage(`make a report ${s.marker}`));
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const parts = paused.status.message?.parts ?? [];
    expect(parts[0]?.text).toBe("Which colour should the report use?");
    expect(parts[1]?.data).toEqual({
      kind: "form",
      schema: {
        type: "object",
        properties: { colour: { type: "string", enum: ["blue", "green"] } },
        required: ["colour"],
      },
    });
    // Still paused when read again; no model call happened while waiting.
    expect(await modelRequests(s.id)).toHaveLength(1);

    const done = await send({
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      taskId: paused.id,
      parts: [{ data: { colour: "blue" }, mediaType: "application/json" }],
    });
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(done.id).toBe(paused.id);
    expect(answerText(done)).toBe("Using blue.");
    expect(await lastToolResults(s.id)).toEqual(['Form values: {"colour":"blue"}']);
  });

  it("checks form values against the form it asked: a value outside it is refused, the task still waits", async () => {
    const s = await scenario([
      tool(
        "ask_user",
        askChoice("Which day?", "day", ["mon", "fri"], { people: { type: "integer" } }),
      ),
      { text: "Booked." },
    ]);
    const paused = await send(userMessage(`plan the launch ${s.marker}`));
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const answer = (data: Record<string, unknown>) =>
      rpc<{ task: StatusTask }>("SendMessage", {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          taskId: paused.id,
          parts: [{ data }],
        },
      });
    for (const [data, reason] of [
      [{ day: "tue" }, 'day: expected one of "mon", "fri"'],
      [{ day: "fri", people: 2.5 }, "people:"],
      [{ people: 3 }, "day: is required"],
      [{ day: "fri", when: "noon" }, "unknown field when"],
    ] as const) {
      const refused = await answer(data);
      expect(refused.error?.code, JSON.stringify(data)).toBe(-32602);
      expect(refused.error?.message).toContain(reason);
    }
    expect((await rpc<StatusTask>("GetTask", { id: paused.id })).result?.status.state).toBe(
      "TASK_STATE_INPUT_REQUIRED",
    );
    expect(await modelRequests(s.id)).toHaveLength(1);
    const done = await answer({ day: "fri", people: 3 });
    expect(done.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(await lastToolResults(s.id)).toEqual(['Form values: {"day":"fri","people":3}']);
  });

  it("works for a v0.3 client: input-required, then a text answer", async () => {
    const s = await scenario([
      tool("ask_user", { question: "What is the deadline?" }),
      { text: "Noted: Friday." },
    ]);
    const first = await v03Send<{
      id: string;
      status: { state: string; message?: { parts: Part[] } };
    }>(`plan it ${s.marker}`);
    expect(first.result?.status.state).toBe("input-required");
    expect(first.result?.status.message?.parts[0]).toEqual({
      kind: "text",
      text: "What is the deadline?",
    });
    const second = await v03Send<{ status: { state: string } }>("Friday", first.result?.id);
    expect(second.result?.status.state).toBe("completed");
    expect(await lastToolResults(s.id)).toEqual(["The user answered: Friday"]);
  });

  it("ends the stream at input-required, and a streamed follow-up runs to completion", async () => {
    const s = await scenario([
      tool("ask_user", { question: "Short or long?" }, "One question first."),
      { text: "Short it is." },
    ]);
    const first = await collectSse(
      await postRpc("/", "SendStreamingMessage", { message: userMessage(`write ${s.marker}`) }),
    );
    const last = first.at(-1)?.body.result as {
      statusUpdate?: { taskId: string; status: { state: string; message?: { parts: Part[] } } };
    };
    expect(last.statusUpdate?.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(last.statusUpdate?.status.message?.parts[0]?.text).toBe("Short or long?");
    const taskId = last.statusUpdate?.taskId as string;

    const second = await collectSse(
      await postRpc("/", "SendStreamingMessage", {
        message: userMessage("short", { taskId }),
      }),
    );
    const states = second
      .map((e) => (e.body.result as { statusUpdate?: { status: { state: string } } }).statusUpdate)
      .filter((u) => u !== undefined)
      .map((u) => u.status.state);
    expect(states.at(-1)).toBe("TASK_STATE_COMPLETED");
    const task = (await rpc<StatusTask>("GetTask", { id: taskId })).result as StatusTask;
    expect(answerText(task)).toBe("One question first.\n\nShort it is.");
  });

  it("keeps waiting across an object restart, then resumes with the answer", async () => {
    const s = await scenario([tool("ask_user", { question: "Proceed?" }), { text: "Done." }]);
    const paused = await send(userMessage(`restart me ${s.marker}`));
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const stub = env.TASKS.get(env.TASKS.idFromName(paused.id));
    await runInDurableObject(stub, (_instance, state) => {
      state.abort("simulated restart");
    }).catch(() => {});
    const done = await send(userMessage("yes, go on", { taskId: paused.id }));
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(await lastToolResults(s.id)).toEqual(["The user answered: yes, go on"]);
  });

  it("refuses bad input as a tool error without pausing", async () => {
    const s = await scenario([
      tool("ask_user", { question: "Pick", fields: { a: { type: "string" } }, required: ["b"] }),
      { text: "ok" },
    ]);
    const task = await send(userMessage(`bad form ${s.marker}`));
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await lastToolResults(s.id))[0]).toMatch(/^ERROR Invalid input for ask_user: .*b/);
  });
});

describe("tool approvals", () => {
  /** A restore scenario (see restoreScenario) in the writer's workspace of a new conversation. */
  async function writerRestore(answer: string) {
    const contextId = crypto.randomUUID();
    const owner = await anonymousOwner(contextId);
    return { contextId, ...(await restoreScenario("writer", owner, answer)) };
  }

  /** A writer task paused to approve restoring checkpoint `id` (scenario `s`, then `answer`). */
  async function pausedRestore(answer: string) {
    const { id, contextId, restore: s } = await writerRestore(answer);
    const paused = await send(
      userMessage(`roll back ${s.marker}`, { contextId }),
      "/agents/writer/",
    );
    return { id, s, paused };
  }

  /** A reply to task `taskId` that fills the approval form with `data`. */
  const formReply = (taskId: string, data: Record<string, unknown>) => ({
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    taskId,
    parts: [{ data }],
  });

  it("asks before a listed tool runs; yes runs it", async () => {
    const { id, s, paused } = await pausedRestore("Restored.");
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const parts = paused.status.message?.parts ?? [];
    expect(parts[0]?.text).toContain("Approve the call of checkpoint_restore");
    expect(parts[1]?.data).toMatchObject({
      kind: "approval",
      tool: "checkpoint_restore",
      input: { id },
      schema: { required: ["approve"] },
    });
    const done = await send(userMessage("yes", { taskId: paused.id }), "/agents/writer/");
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    const [result] = await lastToolResults(s.id);
    expect(result).toContain(`Restored checkpoint ${id}`);
  });

  it("a no (or the form's approve: false) refuses the call and tells the agent why", async () => {
    const { s, paused } = await pausedRestore("Left as is.");
    // An approval's form takes a boolean: anything else is refused, and the task still asks.
    const unclear = await rpc(
      "SendMessage",
      { message: formReply(paused.id, { approve: "maybe" }) },
      { path: "/agents/writer/" },
    );
    expect(unclear.error?.code).toBe(-32602);
    expect(unclear.error?.message).toMatch(/form: approve: .*boolean/);
    const done = await send(
      formReply(paused.id, { approve: false, reason: "keep today's edits" }),
      "/agents/writer/",
    );
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    const [result] = await lastToolResults(s.id);
    expect(result).toBe(
      `ERROR The user did not approve this call of checkpoint_restore. They said: "keep today's edits" Do not repeat it unless they ask; go on without it or ask them how to proceed.`,
    );
  });

  it("works for a v0.3 streaming client: the stream ends input-required, the form approves", async () => {
    const { id, contextId, restore: s } = await writerRestore("Restored (v0.3).");
    const stream = await collectSse(
      await postRpcV03("/agents/writer/", "message/stream", {
        message: v03Message(`roll back ${s.marker}`, { contextId }),
      }),
    );
    const last = stream.at(-1)?.body.result as {
      kind: string;
      taskId: string;
      final?: boolean;
      status: { state: string; message?: { parts: Part[] } };
    };
    expect(last).toMatchObject({ kind: "status-update", final: true });
    expect(last.status.state).toBe("input-required");
    expect(last.status.message?.parts[1]).toMatchObject({
      kind: "data",
      data: { kind: "approval", tool: "checkpoint_restore" },
    });
    const done = await v03Send<{ status: { state: string } }>(
      { approve: true },
      last.taskId,
      "/agents/writer/",
    );
    expect(done.result?.status.state).toBe("completed");
    expect((await lastToolResults(s.id))[0]).toContain(`Restored checkpoint ${id}`);
  });

  it("tools not listed run without asking", async () => {
    const s = await scenario([tool("checkpoint_list", {}), { text: "Listed." }]);
    const task = await send(userMessage(`list ${s.marker}`), "/agents/writer/");
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
  });
});
