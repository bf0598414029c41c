/**
 * A task's life through the JSON-RPC endpoint with the scripted model: blocking and immediate
 * sends, history, tool turns, cancel, follow-ups, limits, retries, the watchdog, and what the
 * task leaves in D1 and R2.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { getTaskIndex } from "../../src/store/d1-index.ts";
import { answerText, expectCompleted, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { until } from "../helpers/until.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const send = async (text: string, extra: Record<string, unknown> = {}, path = "/") =>
  (await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(text), ...extra }, { path }))
    .result?.task as WireTask;
const getTask = async (id: string, historyLength?: number) =>
  (
    await rpc<WireTask>("GetTask", {
      id,
      ...(historyLength === undefined ? {} : { historyLength }),
    })
  ).result as WireTask;

describe("task lifecycle", () => {
  it("a blocking send returns the completed task with its answer, history, owner, trace and usage", async () => {
    const s = await scenario([
      {
        text: "The answer is 42.",
        usage: { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 30 },
      },
    ]);
    const task = await send(`What is the answer? ${s.marker}`);
    expectCompleted(task, "The answer is 42.");
    expect(task.artifacts?.[0]).toMatchObject({ artifactId: "answer", name: "answer" });
    expect(task.history?.map((m) => m.role)).toEqual(["ROLE_USER", "ROLE_AGENT"]);
    // An anonymous caller's task belongs to its conversation: anon- and a hash of the contextId.
    expect(task.metadata?.owner).toBe(await anonymousOwner(task.contextId));
    expect(task.metadata).toMatchObject({
      agent: "assistant",
      stopReason: "end_turn",
      model: { name: "claude-sonnet-4-6", source: "anthropic" },
      usage: {
        inputTokens: 100,
        outputTokens: 7,
        cacheReadTokens: 30,
        cacheWriteTokens: 0,
        modelCalls: 1,
      },
    });
    expect(task.metadata?.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("sends the agent's identity, model and limits to the model", async () => {
    const s = await scenario([{ text: "ok" }]);
    await send(`hi ${s.marker}`, {}, "/agents/deep-thinker/");
    const [request] = await modelRequests(s.id);
    const body = request?.body as unknown as Record<string, unknown>;
    expect(body.model).toBe("claude-sonnet-4-6");
    expect(body.max_tokens).toBe(16000);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8000 });
    expect(body.output_config).toEqual({ effort: "high" });
    const system = (body.system as Array<{ text: string }>).map((b) => b.text).join("\n");
    expect(system).toContain("You are the deep-thinker");
    // The task's environment (with the date) opens its first message, outside the cached system prompt.
    const [first] = body.messages as Array<{ content: Array<{ text?: string }> }>;
    expect(first?.content[0]?.text).toMatch(
      /^<environment>[\s\S]*Current date and time: .*\d{4}.*\(UTC\)/,
    );
    expect(first?.content.at(-1)?.text).toContain("hi");
  });

  it("records the task in the D1 index and copies its answer to R2", async () => {
    const s = await scenario([{ text: "Indexed." }]);
    const task = await send(`index me ${s.marker}`, {}, "/agents/writer/");
    const row = await until(
      () => getTaskIndex(env.DB, task.id),
      (r) => r?.state === "TASK_STATE_COMPLETED",
    );
    expect(row).toMatchObject({
      agent: "writer",
      contextId: task.contextId,
      owner: await anonymousOwner(task.contextId),
      modelCalls: 1,
    });
    expect(row?.traceId).toBe(task.metadata?.traceId);
    const object = await until(
      () => env.FILES.get(`tasks/${task.id}/artifacts/answer.md`),
      (o) => o !== null,
    );
    expect(await object?.text()).toBe("Indexed.");
  });

  it("returnImmediately answers at once with a working task that GetTask later shows completed", async () => {
    const s = await scenario([{ text: "slow answer", delayMs: 60, chunkSize: 3 }]);
    const task = await send(`go ${s.marker}`, { configuration: { returnImmediately: true } });
    expect(task.status.state).toBe("TASK_STATE_WORKING");
    const done = await until(
      () => getTask(task.id),
      (t) => t.status.state === "TASK_STATE_COMPLETED",
    );
    expect(answerText(done)).toBe("slow answer");
  });

  it("GetTask honours historyLength (unset: all, 0: none, n: the last n)", async () => {
    const s = await scenario([{ text: "hello back" }]);
    const task = await send(`hello ${s.marker}`);
    expect((await getTask(task.id)).history).toHaveLength(2);
    expect((await getTask(task.id, 0)).history).toBeUndefined();
    const last = await getTask(task.id, 1);
    expect(last.history).toHaveLength(1);
    expect(last.history?.[0]?.role).toBe("ROLE_AGENT");
    const sent = await rpc<{ task: WireTask }>("SendMessage", {
      message: userMessage(`again ${s.marker}`),
      configuration: { historyLength: 0 },
    });
    expect(sent.result?.task.history).toBeUndefined();
  });

  it("runs tool_use turns: an unknown tool gets an error result and the loop continues", async () => {
    const s = await scenario([
      { text: "Let me look. ", toolUses: [{ name: "no_such_tool", input: { path: "a.md" } }] },
      { text: "Done." },
    ]);
    const task = await send(`use a tool ${s.marker}`);
    expectCompleted(task, "Let me look. \n\nDone.");
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(2);
    const toolTurn = requests[1]?.body.messages.at(-1) as {
      role: string;
      content: Array<Record<string, unknown>>;
    };
    expect(toolTurn.role).toBe("user");
    expect(toolTurn.content[0]).toMatchObject({
      type: "tool_result",
      is_error: true,
      content: expect.stringContaining('Unknown tool "no_such_tool"'),
    });
    expect(task.metadata?.usage).toMatchObject({ modelCalls: 2 });
  });

  it("cancel stops the loop: the task is canceled and no model call starts afterwards", async () => {
    const s = await scenario([
      { text: "a".repeat(40), chunkSize: 2, delayMs: 40, toolUses: [{ name: "noop", input: {} }] },
      { text: "never" },
    ]);
    const task = await send(`long ${s.marker}`, { configuration: { returnImmediately: true } });
    await until(
      () => getTask(task.id),
      (t) => answerText(t).length >= 4,
    );
    const canceled = await rpc<WireTask>("CancelTask", { id: task.id });
    expect(canceled.result?.status.state).toBe("TASK_STATE_CANCELED");
    expect(canceled.result?.status.message?.parts[0]?.text).toContain("Canceled");
    await new Promise((r) => setTimeout(r, 600));
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(1);
    const after = await getTask(task.id);
    expect(after.status.state).toBe("TASK_STATE_CANCELED");
    expect(answerText(after).length).toBeGreaterThan(0);
    expect(answerText(after)).not.toContain("never");
  });

  it("refuses a message to a task that is still working, and one naming another context", async () => {
    const s = await scenario([{ text: "b".repeat(30), chunkSize: 2, delayMs: 40 }]);
    const task = await send(`busy ${s.marker}`, { configuration: { returnImmediately: true } });
    const busy = await rpc("SendMessage", { message: userMessage("and?", { taskId: task.id }) });
    expect(busy.error?.code).toBe(-32004);
    expect(busy.error?.message).toContain("still working");
    const mismatch = await rpc("SendMessage", {
      message: userMessage("x", { taskId: task.id, contextId: "other" }),
    });
    expect(mismatch.error?.code).toBe(-32602);
    await rpc("CancelTask", { id: task.id });
  });

  it("keeps a client-provided contextId", async () => {
    const s = await scenario([{ text: "ctx" }]);
    const task = await send(`c ${s.marker}`, {}, "/");
    const again = await rpc<{ task: WireTask }>("SendMessage", {
      message: userMessage(`d ${s.marker}`, { contextId: task.contextId }),
    });
    expect(again.result?.task.contextId).toBe(task.contextId);
  });

  it("ends at the turn limit as completed with stopReason max_turns, never hanging", async () => {
    const turns = Array.from({ length: 60 }, (_, i) => ({
      text: `step ${i}. `,
      toolUses: [{ name: "noop", input: {} }],
    }));
    const s = await scenario(turns);
    const task = await send(`loop forever ${s.marker}`, {}, "/agents/deep-thinker/");
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.metadata?.stopReason).toBe("max_turns");
    expect(task.status.message?.parts[0]?.text).toContain("turn limit (15)");
    expect(await modelRequests(s.id)).toHaveLength(15);
  });

  it("retries overloaded and rate-limited calls with backoff, then succeeds", async () => {
    const s = await scenario([
      {
        text: "made it",
        errors: [
          { status: 529, type: "overloaded_error" },
          { status: 429, type: "rate_limit_error" },
        ],
      },
    ]);
    const task = await send(`retry ${s.marker}`);
    expectCompleted(task, "made it");
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  it("fails with a clear message once retries are exhausted, and at once on a client error", async () => {
    const overloaded = Array.from({ length: 5 }, () => ({ status: 529, type: "overloaded_error" }));
    const s = await scenario([{ text: "never", errors: overloaded }]);
    const task = await send(`fail ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    expect(task.status.message?.parts[0]?.text).toBe(
      "The model call failed after 5 attempts: the model API is unavailable (overloaded_error, 529). Failed attempts: 5 × overloaded.",
    );
    expect(JSON.stringify(task)).not.toMatch(/at \w+ \(|\.ts:\d+/);
    const bad = await scenario([
      { text: "x", errors: [{ status: 400, type: "invalid_request_error", message: "bad thing" }] },
    ]);
    const failed = await send(`bad ${bad.marker}`);
    expect(failed.status.state).toBe("TASK_STATE_FAILED");
    expect(failed.status.message?.parts[0]?.text).toContain(
      "rejected the request (invalid_request_error, 400): bad thing",
    );
    expect(await modelRequests(bad.id)).toHaveLength(1);
  });

  it("fails at once, as the API would, on a message its model's context window cannot hold", async () => {
    // An agent on a 200K-token model; the message is about 225,000 tokens (under MAX_BODY_BYTES).
    const identity =
      "---\nname: small-window\nmodel: claude-haiku-4-5\ntools: { allow: [read_file] }\n---\nYou read.\n";
    expect((await putIdentity("small-window", identity)).status).toBe(200);
    try {
      const s = await scenario([{ text: "never" }]);
      const task = await send(`${"word ".repeat(180_000)}${s.marker}`, {}, "/agents/small-window/");
      expect(task.status.state).toBe("TASK_STATE_FAILED");
      expect(task.status.message?.parts[0]?.text).toMatch(
        /^The model call failed: the model API rejected the request \(invalid_request_error, 400\): prompt is too long: \d+ tokens > 200000 maximum/,
      );
      // A 400 is the request's fault: not retried.
      expect((await modelRequests(s.id)).map((r) => [r.status, r.attempt])).toEqual([[400, 1]]);
    } finally {
      await deleteIdentity("small-window");
    }
  });

  it("the watchdog ends a silent model stream and retries it without repeating streamed text", async () => {
    const s = await scenario([
      {
        text: "abcdefghijkl",
        chunkSize: 3,
        stallAfterChunks: 2,
        stallMs: 6000,
        stallAttempts: [1],
      },
    ]);
    const task = await send(`stall once ${s.marker}`);
    expectCompleted(task, "abcdefghijkl");
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("the watchdog fails the task when every attempt stalls", async () => {
    const s = await scenario([
      { text: "abcdef", chunkSize: 3, stallAfterChunks: 1, stallMs: 6000 },
    ]);
    const task = await send(`stall always ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    expect(task.status.message?.parts[0]?.text).toContain("stalled (no data for 1500 ms)");
    expect(answerText(task)).toBe("abc");
  });
});
