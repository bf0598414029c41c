/**
 * runStep (src/loop/agent-loop.ts) driven directly with fake step dependencies: an in-memory
 * conversation, loop row and pending calls, a model that answers from a list, real hook and tool
 * registries. No task object, no storage, no network.
 */
import type {
  ContentBlock,
  Message,
  MessageCreateParamsNonStreaming,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../../src/agents/identity.ts";
import { runStep } from "../../../src/loop/agent-loop.ts";
import { HookRunner } from "../../../src/loop/calls/hook-runner.ts";
import type { PendingCalls } from "../../../src/loop/calls/suspension.ts";
import { replyFrom } from "../../../src/loop/calls/suspension.ts";
import { ToolRegistry } from "../../../src/loop/calls/tool-registry.ts";
import type { ChatMessage } from "../../../src/loop/chat-message.ts";
import type { HarnessEvent, Hook, Tool, ToolContext } from "../../../src/loop/contracts.ts";
import { INITIAL_LOOP_STATE, type LoopState } from "../../../src/loop/loop-state.ts";
import type { StepDeps } from "../../../src/loop/step-types.ts";
import { ModelStallError } from "../../../src/model/errors.ts";
import { hookContext } from "../../helpers/hook-context.ts";

const agent = parseIdentity(
  "agents/tester/IDENTITY.md",
  "---\nname: tester\nmaxTurns: 3\nmaxTokens: 1000\n---\nYou test.\n",
);

/** A model reply as the SDK returns it. */
function reply(content: ContentBlock[], stopReason: Message["stop_reason"] = "end_turn"): Message {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: agent.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 2,
      cache_creation_input_tokens: 1,
    },
  } as Message;
}

const text = (value: string) => ({ type: "text", text: value, citations: null }) as ContentBlock;
const toolUse = (id: string, name: string, input: Record<string, unknown> = {}) =>
  ({ type: "tool_use", id, name, input }) as ContentBlock;

/** A tool that records its calls and answers with its input's `say`. */
function echoTool(name: string, calls: unknown[]): Tool {
  return {
    name,
    domain: "test",
    description: "echoes",
    inputSchema: { type: "object" },
    run: async (input) => {
      calls.push(input);
      return { content: `said ${String(input.say)}` };
    },
  };
}

const askTool: Tool = {
  name: "ask",
  domain: "test",
  description: "asks the person",
  inputSchema: { type: "object" },
  run: async () => ({ content: "", suspend: { kind: "question", question: "Which one?" } }),
};

/**
 * A step whose model calls echo (saying `say`), then `middle`, then echo again, in one turn;
 * `calls` records what echo received.
 */
function echoAround(say: string, middle: string, tools: Tool[] = []) {
  const calls: unknown[] = [];
  const uses = [toolUse("c1", "echo", { say }), toolUse("c2", middle), toolUse("c3", "echo")];
  const f = fake([reply(uses, "tool_use")], { tools: [echoTool("echo", calls), ...tools] });
  return { f, calls };
}

const halves = (value: string) => [
  value.slice(0, value.length >> 1),
  value.slice(value.length >> 1),
];

interface Fake {
  deps: StepDeps;
  conversation: ChatMessage[];
  state: LoopState;
  pending: { value: PendingCalls | null };
  params: MessageCreateParamsNonStreaming[];
  shown: string[];
  abort: AbortController;
  events: HarnessEvent[];
}

/** Step dependencies over memory; `answers` are the model's replies (an Error is thrown). */
function fake(
  answers: (Message | Error)[],
  options: { tools?: Tool[]; hooks?: Hook[]; state?: Partial<LoopState> } = {},
): Fake {
  const conversation: ChatMessage[] = [{ role: "user", content: "Hello" }];
  const state: LoopState = { ...INITIAL_LOOP_STATE, ...options.state };
  const pending: { value: PendingCalls | null } = { value: null };
  const params: MessageCreateParamsNonStreaming[] = [];
  const shown: string[] = [];
  const abort = new AbortController();
  const { ctx, events } = hookContext();
  const { turn: _turn, ...hookCtx } = ctx;
  const deps: StepDeps = {
    agent,
    system: "You test.",
    limits: {
      maxTurns: agent.maxTurns,
      idleTimeoutMs: 1_000,
      maxRetries: 2,
      retryBaseMs: 10,
      maxToolCallsPerTurn: 32,
    },
    signal: abort.signal,
    tools: new ToolRegistry(options.tools ?? []),
    toolContext: { taskId: "t1" } as ToolContext,
    hooks: new HookRunner(options.hooks ?? []),
    hookContext: hookCtx,
    async callModel(p, onText) {
      params.push(p);
      const next = answers.shift();
      if (!next) throw new Error("no scripted answer left");
      if (next instanceof Error) throw next;
      // The answer streams as the model writes it, in two pieces a text block.
      for (const block of next.content)
        if (block.type === "text") for (const piece of halves(block.text)) onText(piece);
      return next;
    },
    loadConversation: () => [...conversation],
    appendConversation: (message) => void conversation.push(message),
    loopState: () => ({ ...state }),
    patchLoopState: (changes) => void Object.assign(state, changes),
    pendingCalls: () => pending.value,
    setPendingCalls: (value) => {
      pending.value = value;
    },
    emitAnswer: (_action, turnShown) => void shown.push(turnShown),
    transaction: (fn) => fn(),
  };
  return { deps, conversation, state, pending, params, shown, abort, events };
}

describe("runStep", () => {
  it("commits a finished turn: assistant message, counters, usage and the streamed answer", async () => {
    const f = fake([reply([text("Hi there")])]);
    const outcome = await runStep(f.deps);
    expect(outcome).toEqual({ kind: "completed", stopReason: "end_turn" });
    expect(f.conversation.at(-1)).toEqual({ role: "assistant", content: [text("Hi there")] });
    expect(f.state).toMatchObject({ turn: 1, attempt: 0, answerText: "Hi there", turnText: "" });
    expect(f.state.usage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 2,
      cacheWriteTokens: 1,
      modelCalls: 1,
    });
    expect(f.shown.at(-1)).toBe("Hi there");
    expect(f.params[0]?.messages).toMatchObject([
      { role: "user", content: [{ type: "text", text: "Hello" }] },
    ]);
  });

  it("stops at the turn limit without calling the model", async () => {
    const f = fake([], { state: { turn: 3 } });
    const outcome = await runStep(f.deps);
    expect(outcome).toMatchObject({ kind: "completed", stopReason: "max_turns" });
    expect(f.params).toHaveLength(0);
  });

  it("runs the turn's tool calls in order and sends their results as one user message", async () => {
    const { f, calls } = echoAround("a", "nope");
    expect(await runStep(f.deps)).toEqual({ kind: "continue" });
    expect(calls).toEqual([{ say: "a" }, {}]);
    const results = f.conversation.at(-1);
    expect(results?.role).toBe("user");
    expect(results?.content).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: "said a" },
      {
        type: "tool_result",
        tool_use_id: "c2",
        content: 'Unknown tool "nope". Available: echo.',
        is_error: true,
      },
      { type: "tool_result", tool_use_id: "c3", content: "said undefined" },
    ]);
  });

  it("runs at most maxToolCallsPerTurn calls of a turn and answers the rest as not run", async () => {
    const calls: unknown[] = [];
    const uses = ["c1", "c2", "c3", "c4", "c5"].map((id) => toolUse(id, "echo", { say: id }));
    const f = fake([reply(uses, "tool_use")], { tools: [echoTool("echo", calls)] });
    f.deps.limits.maxToolCallsPerTurn = 2;
    expect(await runStep(f.deps)).toEqual({ kind: "continue" });
    expect(calls).toEqual([{ say: "c1" }, { say: "c2" }]);
    const results = f.conversation.at(-1)?.content as ToolResultBlockParam[];
    // Every tool_use has its tool_result, in order; the three past the cap did not run.
    expect(results.map((r) => r.tool_use_id)).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    expect(results.slice(0, 2).map((r) => r.is_error)).toEqual([undefined, undefined]);
    for (const r of results.slice(2)) {
      expect(r.is_error).toBe(true);
      expect(r.content).toContain("Not run: this turn asked for 5 tool calls and at most 2 run");
    }
    expect(f.events).toEqual([
      {
        kind: "cap_reached",
        text: "This turn asked for 5 tool calls; only the first 2 ran",
        detail: "at most 2 tool calls per turn; 3 not run",
      },
    ]);
  });

  it("keeps the per-turn cap across a call that waits for an answer", async () => {
    const calls: unknown[] = [];
    const uses = [
      toolUse("c1", "echo", { say: "a" }),
      toolUse("c2", "ask"),
      toolUse("c3", "echo", { say: "b" }),
      toolUse("c4", "echo", { say: "c" }),
    ];
    const f = fake([reply(uses, "tool_use")], { tools: [echoTool("echo", calls), askTool] });
    f.deps.limits.maxToolCallsPerTurn = 3;
    expect(await runStep(f.deps)).toMatchObject({ kind: "suspended" });
    const pending = f.pending.value as PendingCalls;
    f.pending.value = { ...pending, resolution: replyFrom([{ text: "yes" }]) };
    expect(await runStep(f.deps)).toEqual({ kind: "continue" });
    expect(calls).toEqual([{ say: "a" }, { say: "b" }]);
    const results = f.conversation.at(-1)?.content as ToolResultBlockParam[];
    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ["c1", false],
      ["c2", false],
      ["c3", false],
      ["c4", true],
    ]);
    expect(f.events.filter((e) => e.kind === "cap_reached")).toHaveLength(1);
  });

  it("retries a retryable model failure with backoff, then fails after the last attempt", async () => {
    const f = fake([new ModelStallError(50), new ModelStallError(50), new ModelStallError(50)]);
    const first = await runStep(f.deps);
    expect(first).toMatchObject({ kind: "retry", reason: expect.stringContaining("stalled") });
    expect(f.state.attempt).toBe(1);
    expect(await runStep(f.deps)).toMatchObject({ kind: "retry" });
    const last = await runStep(f.deps);
    expect(last).toEqual({
      kind: "failed",
      message:
        "The model call failed after 3 attempts: the model stream stalled (no data for 50 ms). Failed attempts: 3 × stalled stream.",
    });
    expect(f.state.turn).toBe(0);
  });

  it("fails at once on a failure that is not retryable", async () => {
    const f = fake([new Error("boom")]);
    const outcome = await runStep(f.deps);
    expect(outcome.kind).toBe("failed");
    expect(f.state.attempt).toBe(0);
  });

  it("refuses the call when the budget says no, and settles what a call really used", async () => {
    const refused = fake([reply([text("never")])]);
    refused.deps.budget = { reserve: async () => "over budget", settle: async () => undefined };
    expect(await runStep(refused.deps)).toEqual({ kind: "budget", message: "over budget" });
    expect(refused.params).toHaveLength(0);

    const settled: number[] = [];
    const paid = fake([reply([text("ok")])]);
    paid.deps.budget = { reserve: async () => null, settle: async (t) => void settled.push(t) };
    await runStep(paid.deps);
    // Weighted by price: 10 input, 5 output at 5, 2 cache reads at 0.1, 1 write at 1.25; rounded up.
    expect(settled).toEqual([37]);
  });

  it("ends aborted, committing nothing, when the task is canceled during the call", async () => {
    const f = fake([reply([text("late")])]);
    const call = f.deps.callModel.bind(f.deps);
    f.deps.callModel = async (p, onText) => {
      f.abort.abort();
      return call(p, onText);
    };
    expect(await runStep(f.deps)).toEqual({ kind: "aborted" });
    expect(f.conversation).toHaveLength(1);
    expect(f.state.turn).toBe(0);
  });

  it("continues when a hook asks for more before completing, and notes a cut-off answer", async () => {
    const nudge: Hook = {
      name: "nudge",
      beforeComplete: async (_ctx, answer) =>
        answer.includes("done") ? undefined : { continueWith: "Say done." },
    };
    const f = fake([reply([text("almost")]), reply([text("done")], "max_tokens")], {
      hooks: [nudge],
    });
    expect(await runStep(f.deps)).toEqual({ kind: "continue" });
    expect(f.conversation.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "Say done." }],
    });
    expect(await runStep(f.deps)).toMatchObject({
      kind: "completed",
      stopReason: "max_tokens",
      note: expect.stringContaining("1000 tokens"),
    });
  });

  it("suspends on a call that waits, then finishes the turn's calls with the answer", async () => {
    const { f, calls } = echoAround("before", "ask", [askTool]);
    const outcome = await runStep(f.deps);
    expect(outcome).toEqual({
      kind: "suspended",
      suspension: { kind: "question", question: "Which one?" },
    });
    expect(f.pending.value).toMatchObject({ next: 1, resolution: null });
    expect(f.pending.value?.results).toHaveLength(1);

    // Still waiting: the step stays suspended without calling the model.
    expect(await runStep(f.deps)).toMatchObject({ kind: "suspended" });
    expect(f.params).toHaveLength(1);

    const pending = f.pending.value as PendingCalls;
    f.pending.value = { ...pending, resolution: replyFrom([{ text: "the blue one" }]) };
    expect(await runStep(f.deps)).toEqual({ kind: "continue" });
    expect(f.pending.value).toBeNull();
    expect(calls).toEqual([{ say: "before" }, {}]);
    expect(f.conversation.at(-1)?.content).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: "said before" },
      { type: "tool_result", tool_use_id: "c2", content: "The user answered: the blue one" },
      { type: "tool_result", tool_use_id: "c3", content: "said undefined" },
    ]);
  });

  it("refuses a call the person did not approve, and runs one they did", async () => {
    const calls: unknown[] = [];
    const approvalFirst: Hook = {
      name: "approvals",
      beforeTool: async (_ctx, call) =>
        call.name === "echo"
          ? { suspend: { kind: "approval", tool: call.name, input: call.input } }
          : undefined,
    };
    const run = async (answer: string) => {
      const f = fake([reply([toolUse("c1", "echo", { say: "x" })], "tool_use")], {
        tools: [echoTool("echo", calls)],
        hooks: [approvalFirst],
      });
      expect(await runStep(f.deps)).toMatchObject({ kind: "suspended" });
      const pending = f.pending.value as PendingCalls;
      f.pending.value = { ...pending, resolution: replyFrom([{ text: answer }]) };
      expect(await runStep(f.deps)).toEqual({ kind: "continue" });
      return f.conversation.at(-1)?.content;
    };
    const denied = await run("no, too risky");
    expect(denied).toEqual([
      {
        type: "tool_result",
        tool_use_id: "c1",
        content: expect.stringContaining(
          'did not approve this call of echo. They said: "no, too risky"',
        ),
        is_error: true,
      },
    ]);
    expect(calls).toEqual([]);
    const approved = await run("yes");
    expect(approved).toEqual([{ type: "tool_result", tool_use_id: "c1", content: "said x" }]);
    expect(calls).toEqual([{ say: "x" }]);
  });

  it("reports a sub-agent's end as the waiting call's result", async () => {
    const f = fake([]);
    f.pending.value = {
      calls: [{ id: "c1", name: "task", input: {} }],
      next: 0,
      results: [],
      waiting: { kind: "child", childTaskId: "child-1", agent: "researcher" },
      resolution: { kind: "child", state: "TASK_STATE_FAILED", text: "no sources" },
      deferred: [{ message: { role: "user", content: "later turn" }, seq: 7 }],
    };
    expect(await runStep(f.deps)).toEqual({ kind: "continue" });
    expect(f.conversation.slice(-2)).toEqual([
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "c1",
            content: "The researcher sub-agent failed: no sources",
            is_error: true,
          },
        ],
      },
      { role: "user", content: "later turn" },
    ]);
  });
});
