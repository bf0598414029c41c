/**
 * A task tree's spans from its records (GET /api/tasks/<id>/trace, OTLP/JSON): the task, its steps,
 * model calls whose token attributes sum to the task's usage, tool calls, a local sub-agent's
 * spans under the `task` tool call that started it (and linked from it), a wait for a person as a
 * span, a hook intervention as an event; only the owner (or an admin) reads it; no prompt,
 * completion or tool text is in it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WireTask as Task } from "../helpers/a2a.ts";
import { callWorker, newUser, rpcAs } from "../helpers/as-user.ts";
import { scenario } from "../helpers/fake-model.ts";
import { attr, type Otlp, type OtlpSpan, spansOf } from "../helpers/otlp.ts";
import { taskInput, textToolTurn as tool } from "../helpers/turns.ts";

async function traceAs(token: string, taskId: string) {
  return callWorker(`/api/tasks/${taskId}/trace`, {
    headers: { Authorization: `Bearer ${token}` },
  });
}

describe("task trace", () => {
  it("covers the tree with every parent present, usage on model spans, hooks, waits and links", async () => {
    const secret = `secret-${crypto.randomUUID()}`;
    const path = `trace-${crypto.randomUUID().slice(0, 8)}.md`;
    const child = await scenario([
      {
        text: `Child answer ${secret}`,
        usage: { input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 11 },
      },
    ]);
    const usage = {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 5,
    };
    const parent = await scenario([
      {
        ...tool("task", taskInput("writer", "draft", `Draft ${secret}. ${child.marker}`)),
        usage,
      },
      { ...tool("write_file", { path, content: secret }), usage },
      { ...tool("ask_user", { question: `Which day? ${secret}` }), usage },
      { text: `Done ${secret}`, usage },
      { ...tool("read_file", { path }), usage },
      { text: "Verified.", usage },
    ]);
    const user = await newUser();
    const sent = await rpcAs<{ task: Task }>(user.token, "SendMessage", {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: `go ${secret} ${parent.marker}` }],
      },
    });
    const paused = sent.body.result?.task as Task;
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const resumed = await rpcAs<{ task: Task }>(user.token, "SendMessage", {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        taskId: paused.id,
        contextId: paused.contextId,
        parts: [{ text: "friday" }],
      },
      configuration: { returnImmediately: false },
    });
    const done = resumed.body.result?.task as Task;
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");

    const response = await traceAs(user.token, done.id);
    expect(response.status).toBe(200);
    const body = await response.text();
    // No prompt, completion, tool input or tool output text.
    expect(body).not.toContain(secret);
    const spans = spansOf(JSON.parse(body) as Otlp);
    const traceId = done.metadata?.traceId as string;
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
    // Every parent is present: one root, the task's span.
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent assistant"]);
    for (const span of spans) if (span.parentSpanId) expect(ids.has(span.parentSpanId)).toBe(true);

    // Model spans: their tokens sum to the task's usage (its own and its sub-agent's).
    const models = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat");
    const sum = (key: string) => models.reduce((n, s) => n + Number(attr(s, key) ?? 0), 0);
    const taskUsage = done.metadata?.usage as Record<string, number>;
    expect(sum("gen_ai.usage.input_tokens")).toBe(taskUsage.inputTokens);
    expect(sum("gen_ai.usage.output_tokens")).toBe(taskUsage.outputTokens);
    expect(sum("gen_ai.usage.cache_read.input_tokens")).toBe(taskUsage.cacheReadTokens);
    expect(sum("gen_ai.usage.cache_creation.input_tokens")).toBe(taskUsage.cacheWriteTokens);
    expect(models.length).toBe(taskUsage.modelCalls);
    expect(attr(models[0] as OtlpSpan, "gen_ai.request.model")).toEqual(expect.any(String));
    expect(attr(models[0] as OtlpSpan, "a2a.cost_usd")).toBeGreaterThan(0);

    // The delegation: the child's task span is under the `task` tool call's span, and linked.
    const delegation = spans.find((s) => s.name === "execute_tool task") as OtlpSpan;
    const childTask = spans.find((s) => s.name === "invoke_agent writer") as OtlpSpan;
    expect(childTask.parentSpanId).toBe(delegation.spanId);
    expect(delegation.links.map((l) => l.spanId)).toContain(childTask.spanId);
    expect(attr(delegation, "a2a.tool.outcome")).toBe("ok");
    // Tool calls with outcome and output size.
    const write = spans.find((s) => s.name === "execute_tool write_file") as OtlpSpan;
    expect(attr(write, "gen_ai.tool.name")).toBe("write_file");
    expect(attr(write, "a2a.tool.output_chars")).toBeGreaterThan(0);
    // The wait for the person is a span of its own.
    const wait = spans.find((s) => s.name === "wait for input") as OtlpSpan;
    expect(attr(wait, "a2a.wait.answered")).toBe(true);
    // The verification hook's intervention is an event.
    const events = spans.flatMap((s) => s.events.map((e) => e.name));
    expect(events).toContain("harness.verification");
    // Steps hold the model calls.
    expect(spans.filter((s) => s.name.startsWith("step ")).length).toBeGreaterThanOrEqual(6);

    // Only the owner (or an admin) reads it.
    const other = await newUser();
    expect((await traceAs(other.token, done.id)).status).toBe(404);
    expect((await traceAs(env.ADMIN_API_KEY as string, done.id)).status).toBe(200);
    expect((await traceAs(user.token, crypto.randomUUID())).status).toBe(404);
  });

  it("gives the same span ids each time it is built", async () => {
    const s = await scenario([{ text: "hi" }]);
    const user = await newUser();
    const sent = await rpcAs<{ task: Task }>(user.token, "SendMessage", {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: `hi ${s.marker}` }],
      },
    });
    const id = (sent.body.result?.task as Task | undefined)?.id ?? "";
    const first = spansOf((await (await traceAs(user.token, id)).json()) as Otlp);
    const second = spansOf((await (await traceAs(user.token, id)).json()) as Otlp);
    expect(second.map((s) => s.spanId)).toEqual(first.map((s) => s.spanId));
    expect(second.map((s) => s.endTimeUnixNano)).toEqual(first.map((s) => s.endTimeUnixNano));
  });
});
