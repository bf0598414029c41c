/**
 * The harness through the A2A endpoint with the scripted model's tool_use turns: tools and
 * their events on the stream, the verification gate, loop detection, caps (per task and per
 * turn), the turn limit with what remains, handoff notes, memory, checkpoints and rollback,
 * compaction keeping the prompt bounded, and hook state surviving a restart mid-task.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import type { Turn } from "../../src/model/scripted/turn.ts";
import {
  ANSWER_ECHO_EXTENSION,
  COST_EXTENSION,
  GENERATIONS_EXTENSION,
  HARNESS_EVENTS_EXTENSION,
  LIVE_MESSAGES_EXTENSION,
} from "../../src/protocol/extensions.ts";
import { workspaceFor } from "../../src/workspace/client.ts";
import {
  answerText,
  expectCompleted,
  fetchWorker,
  rpc,
  userMessage,
  type WireTask,
} from "../helpers/a2a.ts";
import { newUser } from "../helpers/as-user.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { textToolTurn as tool } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

type Part = { text?: string; data?: Record<string, unknown> };
type HistoryMessage = { role: string; parts: Part[]; extensions?: string[] };

const send = async (
  text: string,
  path = "/",
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  (
    await rpc<{ task: WireTask }>(
      "SendMessage",
      { message: userMessage(text, extra) },
      { path, headers },
    )
  ).result?.task as WireTask;

/** The harness events of a task's history, as data parts. */
const eventsOf = (task: WireTask) =>
  ((task.history ?? []) as HistoryMessage[])
    .filter((m) => m.extensions?.includes(HARNESS_EVENTS_EXTENSION))
    .map(
      (m) =>
        m.parts.find((p) => p.data)?.data as {
          kind: string;
          tool?: string;
          path?: string;
          detail: unknown;
        },
    );

const lastUserText = (
  request: { body: { messages: Array<{ role: string; content: unknown }> } } | undefined,
) => {
  const content = request?.body.messages.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
};

const unique = (stem: string) => `${stem}-${crypto.randomUUID().slice(0, 8)}`;

describe("tools and events on the stream", () => {
  it("runs workspace, plan and progress tools and publishes each call, result and change", async () => {
    const file = `${unique("notes")}.md`;
    const s = await scenario([
      tool("write_todos", {
        todos: [
          { content: "Write notes", status: "in_progress" },
          { content: "Review", status: "pending" },
        ],
      }),
      tool("write_file", { path: file, content: "hello\nworld\n" }),
      tool("read_file", { path: file }),
      tool("progress_update", { accomplished: ["Wrote the notes"], remaining: ["Review them"] }),
      { text: "Done: notes written." },
    ]);
    const task = await send(`Write notes ${s.marker}`);
    expectCompleted(task, "Done: notes written.");
    const events = eventsOf(task);
    const kinds = events.map((e) => e.kind);
    expect(kinds.filter((k) => k === "tool_call")).toHaveLength(4);
    expect(kinds.filter((k) => k === "tool_result")).toHaveLength(4);
    expect(kinds).toContain("plan");
    expect(kinds).toContain("progress");
    expect(events.find((e) => e.kind === "tool_call" && e.tool === "write_file")).toMatchObject({
      path: file,
    });
    expect(events.find((e) => e.kind === "plan")?.detail).toEqual({
      todos: [
        { content: "Write notes", status: "in_progress", agent: "assistant" },
        { content: "Review", status: "pending", agent: "assistant" },
      ],
    });
    const progress = task.artifacts?.find((a) => a.artifactId === "progress") as unknown as {
      parts: Part[];
    };
    expect(progress.parts[0]?.data).toMatchObject({
      accomplished: ["Wrote the notes"],
      remaining: ["Review them"],
    });
    const requests = await modelRequests(s.id);
    expect(lastUserText(requests[3])).toContain("hello");
    const ws = workspaceFor(env.WORKSPACES, "assistant", task.metadata?.owner as string);
    const handoff = await ws.read("HANDOFF.md");
    expect(handoff.ok && handoff.value.content).toContain(`Handoff from task ${task.id}`);
    expect(handoff.ok && handoff.value.content).toContain("- Review them");
  });

  it("declares the harness-events, cost, answer-echo, generations and live-messages extensions in both card generations", async () => {
    for (const headers of [{ "A2A-Version": "1.0" }, {}] as Array<Record<string, string>>) {
      const card = (await (
        await fetchWorker("/.well-known/agent-card.json", { headers })
      ).json()) as { capabilities: { extensions: Array<{ uri: string }> } };
      expect(card.capabilities.extensions.map((e) => e.uri)).toEqual([
        HARNESS_EVENTS_EXTENSION,
        COST_EXTENSION,
        ANSWER_ECHO_EXTENSION,
        GENERATIONS_EXTENSION,
        LIVE_MESSAGES_EXTENSION,
      ]);
    }
  });
});

describe("hooks through the endpoint", () => {
  it("the verification gate asks for a read-back once, then lets the task finish", async () => {
    const file = `${unique("report")}.md`;
    const s = await scenario([
      tool("write_file", { path: file, content: "draft" }),
      { text: "All done." },
      tool("read_file", { path: file }),
      { text: "Checked." },
    ]);
    const task = await send(`Write a report ${s.marker}`);
    expectCompleted(task, "All done.\n\nChecked.");
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(4);
    expect(lastUserText(requests[2])).toContain(
      `[harness] You modified files but haven't verified the changes: ${file}. Please verify before finishing: re-read each changed file (read_file, or search it with grep_files);`,
    );
    expect(eventsOf(task).filter((e) => e.kind === "verification")).toEqual([
      expect.objectContaining({ detail: file }),
    ]);
  });

  it("the gate stays quiet when the agent read its change back", async () => {
    const file = `${unique("ok")}.md`;
    const s = await scenario([
      tool("write_file", { path: file, content: "x" }),
      tool("read_file", { path: file }),
      { text: "Fine." },
    ]);
    const task = await send(`w ${s.marker}`);
    expect(answerText(task)).toBe("Fine.");
    expect(await modelRequests(s.id)).toHaveLength(3);
  });

  it("loop detection warns on the third edit of one file in a row, in the reference's words", async () => {
    const file = `${unique("loop")}.md`;
    const s = await scenario([
      tool("write_file", { path: file, content: "1" }),
      tool("write_file", { path: file, content: "2" }),
      tool("write_file", { path: file, content: "3" }),
      tool("read_file", { path: file }),
      { text: "Stopped looping." },
    ]);
    const task = await send(`loop ${s.marker}`);
    const requests = await modelRequests(s.id);
    expect(lastUserText(requests[2])).not.toContain("[harness] You've edited");
    expect(lastUserText(requests[3])).toContain(
      `[harness] You've edited ${file} 3 times. Consider stepping back: is your approach correct, or should you try a fundamentally different solution?`,
    );
    expect(eventsOf(task).filter((e) => e.kind === "loop_warning")).toHaveLength(1);
  });

  it("a verification between edits resets the loop count: a read of another file or a run", async () => {
    const file = `${unique("reset")}.js`;
    const other = `${unique("other")}.md`;
    const edit = (n: number) =>
      tool("write_file", { path: file, content: `export default ${n};\n` });
    const s = await scenario([
      tool("write_file", { path: other, content: "notes" }),
      edit(1),
      edit(2),
      tool("read_file", { path: other }),
      edit(3),
      edit(4),
      tool("run_code", { code: "1 + 1" }),
      edit(5),
      edit(6),
      tool("run_code", { path: file }),
      { text: "Settled." },
    ]);
    const task = await send(`edit ${s.marker}`);
    expect(answerText(task)).toBe("Settled.");
    expect(eventsOf(task).filter((e) => e.kind === "loop_warning")).toEqual([]);
    // The run after the last edit verified the batch: no reminder was needed.
    expect(eventsOf(task).filter((e) => e.kind === "verification")).toEqual([]);
    expect(await modelRequests(s.id)).toHaveLength(11);
  });

  it("a capped tool answers without running past its cap, as a normal result", async () => {
    const s = await scenario([
      tool("progress_read", {}),
      tool("progress_read", {}),
      tool("progress_read", {}),
      { text: "ok" },
    ]);
    const task = await send(`cap ${s.marker}`);
    const requests = await modelRequests(s.id);
    const third = requests[3]?.body.messages.at(-1)?.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(third[0]?.content).toContain("progress_read has been used 2 times in this task");
    expect(third[0]?.is_error).toBeUndefined();
    expect(eventsOf(task).filter((e) => e.kind === "cap_reached")).toHaveLength(1);
  });

  it("runs at most MAX_TOOL_CALLS_PER_TURN calls of one turn; the others answer not run", async () => {
    const cap = loadConfig(env).maxToolCallsPerTurn;
    const ids = Array.from({ length: 200 }, (_, i) => `toolu_many_${i}`);
    expect(cap).toBeLessThan(ids.length);
    const s = await scenario([
      { toolUses: ids.map((id) => ({ id, name: "list_files", input: {} })) },
      { text: "Listed." },
    ]);
    const task = await send(`many calls ${s.marker}`);
    expectCompleted(task, "Listed.");
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(2);
    // The conversation stays well-formed: every tool_use has its tool_result, in order.
    const results = requests[1]?.body.messages.at(-1)?.content as Array<{
      type: string;
      tool_use_id: string;
      content: string;
      is_error?: boolean;
    }>;
    expect(results.map((r) => [r.type, r.tool_use_id])).toEqual(
      ids.map((id) => ["tool_result", id]),
    );
    expect(results.filter((r) => !r.is_error)).toHaveLength(cap);
    const notRun = results.slice(cap);
    expect(notRun.every((r) => r.is_error && r.content.startsWith("Not run:"))).toBe(true);
    const events = eventsOf(task);
    expect(events.filter((e) => e.kind === "tool_call")).toHaveLength(cap);
    expect(events.filter((e) => e.kind === "cap_reached")).toEqual([
      {
        kind: "cap_reached",
        agent: "assistant",
        detail: `at most ${cap} tool calls per turn; ${ids.length - cap} not run`,
      },
    ]);
  });

  it("the turn limit ends the task as completed, saying what remains", async () => {
    const turns: Turn[] = [
      tool("progress_update", { remaining: ["Compare options", "Write it up"] }),
    ];
    for (let i = 0; i < 25; i++)
      turns.push(tool("write_todos", { todos: [{ content: `step ${i}`, status: "in_progress" }] }));
    const s = await scenario(turns);
    const task = await send(`write ${s.marker}`, "/agents/writer/");
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.metadata?.stopReason).toBe("max_turns");
    const message = task.status.message?.parts[0]?.text ?? "";
    expect(message).toContain("the turn limit (20) was reached");
    expect(message).toContain("- Compare options\n- Write it up");
    expect(eventsOf(task).some((e) => e.kind === "turn_limit")).toBe(true);
  });
});

describe("state across tasks", () => {
  it("shows the previous task's handoff and the user's memory in the next prompt", async () => {
    const s = await scenario([
      tool("memory_write", { content: "Prefers tables." }),
      { text: "Saved." },
      { text: "Second." },
    ]);
    const first = await send(`remember ${s.marker}`, "/agents/writer/");
    await send(`again ${s.marker}`, "/agents/writer/", { contextId: first.contextId });
    const requests = await modelRequests(s.id);
    const last = requests.at(-1);
    if (!last) throw new Error("no model request recorded");
    const system = (last.body.system as Array<{ text: string }>).map((b) => b.text).join("\n");
    expect(system).toContain("Prefers tables.");
    // The handoff is in the environment note in front of the second task's message.
    const opening = last.body.messages.at(-1)?.content as Array<{ text?: string }>;
    expect(opening[0]?.text).toContain(`Handoff from task ${first.id}`);
    expect(opening.at(-1)?.text).toContain("again");
    // The first task's message goes with its environment note on every request that carries it:
    // both of that task's model calls and the next task's (one prefix for the prompt cache).
    const texts = (request: (typeof requests)[number]) =>
      ((request.body.messages[0]?.content ?? []) as Array<{ text?: string }>).map((b) => b.text);
    const [firstCall, secondCall] = requests;
    if (!firstCall || !secondCall) throw new Error("the first task made two model calls");
    expect(texts(firstCall)).toHaveLength(2);
    expect(texts(firstCall)[0]).toContain("# Environment");
    expect(texts(firstCall)[1]).toContain("remember");
    expect(texts(secondCall)).toEqual(texts(firstCall));
    expect(texts(last)).toEqual(texts(firstCall));
  });

  it("checkpoints round-trip through the tools, and a failed task is rolled back", async () => {
    const file = `${unique("cp")}.md`;
    const ok = await scenario([
      tool("write_file", { path: file, content: "v1" }),
      tool("checkpoint_create", { label: "good state" }),
      tool("write_file", { path: file, content: "v2" }),
      tool("checkpoint_list", {}),
      { text: "listed" },
    ]);
    // One user across three conversations: a user's workspace outlives each conversation.
    const user = await newUser();
    const as = { Authorization: `Bearer ${user.token}` };
    const first = await send(`checkpoint ${ok.marker}`, "/", {}, as);
    expect(first.status.state).toBe("TASK_STATE_COMPLETED");
    const listing = lastUserText((await modelRequests(ok.id))[4]);
    const id = /(cp-\d+)[^\n]*good state/.exec(listing)?.[1];
    expect(id).toBeDefined();
    const ws = workspaceFor(env.WORKSPACES, "assistant", user.id);
    const restore = await scenario([
      tool("checkpoint_restore", { id }),
      tool("read_file", { path: file }),
      { text: "restored" },
    ]);
    await send(`restore ${restore.marker}`, "/", {}, as);
    const back = await ws.read(file);
    expect(back.ok && back.value.content).toBe("v1");

    const failing = await scenario([
      tool("write_file", { path: file, content: "broken" }),
      { text: "x", errors: [{ status: 400, type: "invalid_request_error" }] },
    ]);
    const failed = await send(`fail ${failing.marker}`, "/", {}, as);
    expect(failed.status.state).toBe("TASK_STATE_FAILED");
    const after = await ws.read(file);
    expect(after.ok && after.value.content).toBe("v1");
    expect(eventsOf(failed).some((e) => e.kind === "rollback")).toBe(true);
  });
});

describe("compaction", () => {
  it("keeps every prompt under the budget over a long task", async () => {
    const pad = "lorem ipsum dolor sit amet ".repeat(120);
    const turns: Turn[] = [];
    for (let i = 0; i < 40; i++)
      turns.push(
        tool(
          "write_todos",
          { todos: [{ content: `step ${i} ${pad}`.slice(0, 500), status: "in_progress" }] },
          `Working on step ${i}. ${pad}`,
        ),
      );
    turns.push({ text: "Finished." });
    const s = await scenario(turns);
    const task = await send(`long haul ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const requests = await modelRequests(s.id);
    const turnsOnly = requests.filter(
      (r) => !JSON.stringify(r.body.system ?? "").includes("You compress a conversation"),
    );
    const sizes = turnsOnly.map((r) => Math.ceil(JSON.stringify(r.body).length / 4));
    expect(Math.max(...sizes)).toBeLessThan(12_000 * 1.25);
    expect(eventsOf(task).filter((e) => e.kind === "compaction").length).toBeGreaterThan(0);
    expect(requests.length).toBeGreaterThan(turnsOnly.length);
  });
});

describe("restarts", () => {
  it("loop-detection counts survive the task object restarting mid-task", async () => {
    const file = `${unique("restart")}.md`;
    const s = await scenario([
      tool("write_file", { path: file, content: "1" }),
      tool("write_file", { path: file, content: "2" }),
      {
        ...tool("write_file", { path: file, content: "3" }, "writing again "),
        chunkSize: 2,
        delayMs: 80,
      },
      tool("read_file", { path: file }),
      { text: "done" },
    ]);
    const started = (
      await rpc<{ task: WireTask }>("SendMessage", {
        message: userMessage(`restart ${s.marker}`),
        configuration: { returnImmediately: true },
      })
    ).result?.task as WireTask;
    await until(
      () => modelRequests(s.id),
      (r) => r.some((q) => q.turnIndex === 2),
    );
    await runInDurableObject(env.TASKS.get(env.TASKS.idFromName(started.id)), (_o, state) =>
      state.abort(EXPECTED_CRASH),
    ).catch(() => {});
    await until(
      () => rpc<WireTask>("GetTask", { id: started.id }),
      (r) => r.result?.status.state === "TASK_STATE_COMPLETED",
    );
    const requests = await modelRequests(s.id);
    const afterThird = requests.find((r) => r.turnIndex === 3);
    expect(lastUserText(afterThird)).toContain(`You've edited ${file} 3 times.`);
  });
});
