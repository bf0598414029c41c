/**
 * One endpoint, both protocol generations: raw v0.3 JSON-RPC, tasks crossing versions,
 * idempotent sends (concurrent duplicates too), follow-ups into a paused task, ListTasks, and
 * W3C trace context.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TaskObject } from "../../src/task/task-object.ts";
import {
  answerText,
  fetchWorker,
  postRpcV03,
  type RpcResponse,
  rpc,
  userMessage,
  v03Message,
  type WireTask,
} from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { collectSse } from "../helpers/sse.ts";
import { until } from "../helpers/until.ts";

type V03Task = {
  kind: string;
  id: string;
  contextId: string;
  status: { state: string };
  artifacts?: Array<{ parts: Array<{ kind: string; text: string }> }>;
  history?: Array<{ kind: string; role: string }>;
};

const v03 = <T = V03Task>(method: string, params: unknown) => rpc<T>(method, params, { v03: true });

describe("v0.3 JSON-RPC on the same endpoint", () => {
  it("message/send (blocking) answers a v0.3 Task: kind fields, lowercase states", async () => {
    const s = await scenario([{ text: "legacy answer" }]);
    const body = await v03("message/send", {
      message: v03Message(`old client ${s.marker}`),
      configuration: { blocking: true },
    });
    expect(body.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(body.result?.artifacts?.[0]?.parts[0]).toEqual({ kind: "text", text: "legacy answer" });
    expect(body.result?.history?.[0]).toMatchObject({ kind: "message", role: "user" });
  });

  it("message/stream ends with a status-update marked final: true; also with A2A-Version: 0.3", async () => {
    const s = await scenario([{ text: "stream old", chunkSize: 3 }]);
    const events = await collectSse(
      await postRpcV03(
        "/",
        "message/stream",
        { message: v03Message(`s ${s.marker}`) },
        { "A2A-Version": "0.3" },
      ),
    );
    const results = events.map((e) => e.body.result as Record<string, unknown>);
    expect(results[0]).toMatchObject({ kind: "task", status: { state: "submitted" } });
    expect(results.some((r) => r.kind === "artifact-update")).toBe(true);
    expect(results.at(-1)).toMatchObject({
      kind: "status-update",
      final: true,
      status: { state: "completed" },
    });
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
  });

  it("tasks/get, tasks/cancel and tasks/resubscribe", async () => {
    const s = await scenario([{ text: "q".repeat(40), chunkSize: 2, delayMs: 40 }]);
    const sent = await v03("message/send", {
      message: v03Message(`c ${s.marker}`),
      configuration: { blocking: false },
    });
    const id = sent.result?.id as string;
    expect(sent.result?.status.state).toBe("working");
    const got = await v03("tasks/get", { id, historyLength: 1 });
    expect(got.result?.history).toHaveLength(1);
    const resubscribed = await postRpcV03("/", "tasks/resubscribe", { id });
    const reader = resubscribed.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toContain('"kind":"task"');
    await reader?.cancel();
    const canceled = await v03("tasks/cancel", { id });
    expect(canceled.result?.status.state).toBe("canceled");
    const again = await v03("tasks/cancel", { id });
    expect(again.error).toMatchObject({ code: -32002 });
    expect(again.error?.data).toBeUndefined();
  });

  it("answers v0.3 errors in the v0.3 shape", async () => {
    const missing = await v03("tasks/get", { id: "nope" });
    expect(missing.error?.code).toBe(-32001);
    const invalid = await v03("message/send", {
      message: { kind: "message", role: "user", parts: [] },
    });
    expect(invalid.error?.code).toBe(-32602);
    expect(invalid.error?.data).toMatchObject({ fieldViolations: expect.any(Array) });
    const parse = (await (
      await fetchWorker("/", { method: "POST", body: "{" })
    ).json()) as RpcResponse;
    expect(parse.error?.code).toBe(-32700);
  });

  it("a task started over v0.3 reads over v1.0, and the other way round", async () => {
    const s = await scenario([{ text: "both worlds" }]);
    const old = await v03("message/send", {
      message: v03Message(`x ${s.marker}`),
      configuration: { blocking: true },
    });
    const viaV1 = await rpc<WireTask>("GetTask", { id: old.result?.id });
    expect(viaV1.result?.status.state).toBe("TASK_STATE_COMPLETED");
    expect(answerText(viaV1.result as WireTask)).toBe("both worlds");
    const fresh = (
      await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(`y ${s.marker}`) })
    ).result?.task as WireTask;
    const viaV03 = await v03("tasks/get", { id: fresh.id });
    expect(viaV03.result).toMatchObject({
      kind: "task",
      id: fresh.id,
      status: { state: "completed" },
    });
  });
});

describe("idempotent sends", () => {
  // An anonymous caller's resend meets its first send in the conversation it names: without a
  // contextId, each send opens a conversation (a principal) of its own.
  it("a repeated messageId returns the existing task instead of starting another", async () => {
    const s = await scenario([{ text: "once" }]);
    const message = userMessage(`idem ${s.marker}`, { contextId: crypto.randomUUID() });
    const first = await rpc<{ task: WireTask }>("SendMessage", { message });
    const second = await rpc<{ task: WireTask }>("SendMessage", { message });
    expect(second.result?.task.id).toBe(first.result?.task.id);
    expect(await modelRequests(s.id)).toHaveLength(1);
    const otherAgent = await rpc<{ task: WireTask }>(
      "SendMessage",
      { message },
      { path: "/agents/writer/" },
    );
    expect(otherAgent.result?.task.id).not.toBe(first.result?.task.id);
  });

  it("concurrent duplicates collapse into one task, over both protocol versions", async () => {
    const s = await scenario([{ text: "one", delayMs: 30, chunkSize: 1 }]);
    const contextId = crypto.randomUUID();
    const message = userMessage(`dup ${s.marker}`, { contextId });
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => rpc<{ task: WireTask }>("SendMessage", { message })),
    ]);
    const ids = new Set(results.map((r) => r.result?.task.id));
    expect(ids.size).toBe(1);
    expect(results.every((r) => r.result?.task.status.state === "TASK_STATE_COMPLETED")).toBe(true);
    const legacy = await v03("message/send", {
      message: v03Message("dup", { contextId, messageId: message.messageId }),
    });
    expect(legacy.result?.id).toBe([...ids][0]);
    expect(await modelRequests(s.id)).toHaveLength(1);
  });

  it("a follow-up continues a task that waits for input, and a resent follow-up is applied once", async () => {
    const s = await scenario([{ text: "unused" }, { text: "Thanks, continuing with report.md." }]);
    const taskId = crypto.randomUUID();
    const stub = env.TASKS.get(env.TASKS.idFromName(taskId));
    await runInDurableObject(stub, async (object) => {
      const instance = object as unknown as TaskObject;
      await instance.create(
        {
          taskId,
          contextId: crypto.randomUUID(),
          agent: "assistant",
          owner: "anon-followup",
          traceId: "b".repeat(32),
          message: {
            messageId: "m0",
            role: "ROLE_USER",
            parts: [{ text: `Edit my file ${s.marker}` }],
          },
        },
        { stream: false },
      );
      // As if the agent had asked a question (the input-required seam): no model turn runs.
      await instance.runtime.scheduler.cancel("loop");
      instance.runtime.conversation.append({
        role: "assistant",
        content: [{ type: "text", text: "Which file?" }],
      });
      instance.runtime.store.appendHistory(instance.runtime.agentMessage("Which file?"));
      instance.runtime.setStatus("TASK_STATE_INPUT_REQUIRED", { text: "Which file?" });
    });
    const answer = userMessage("report.md", { taskId });
    const resumed = await rpc<{ task: WireTask }>("SendMessage", { message: answer });
    expect(resumed.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(answerText(resumed.result?.task as WireTask)).toContain("continuing with report.md");
    const again = await rpc<{ task: WireTask }>("SendMessage", { message: answer });
    expect(again.result?.task.id).toBe(taskId);
    expect(again.result?.task.history?.filter((m) => m.role === "ROLE_USER")).toHaveLength(2);
    const requests = await modelRequests(s.id);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });
});

describe("ListTasks", () => {
  it("lists the caller's tasks of this agent, newest first, with filters and cursor pages", async () => {
    const s = await scenario(Array.from({ length: 6 }, () => ({ text: "listed" })));
    const contextId = crypto.randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const sent = await rpc<{ task: WireTask }>(
        "SendMessage",
        { message: userMessage(`t${i} ${s.marker}`, { contextId }) },
        { path: "/agents/deep-thinker/" },
      );
      ids.push(sent.result?.task.id as string);
    }
    await rpc(
      "SendMessage",
      { message: userMessage(`elsewhere ${s.marker}`, { contextId }) },
      { path: "/agents/writer/" },
    );
    const list = (params: Record<string, unknown>) =>
      rpc<{ tasks: WireTask[]; nextPageToken: string; pageSize: number; totalSize: number }>(
        "ListTasks",
        params,
        { path: "/agents/deep-thinker/" },
      );
    const all = await until(
      () => list({ contextId }),
      (r) => r.result?.totalSize === 5,
    );
    expect(all.result?.tasks.map((t) => t.id)).toEqual([...ids].reverse());
    expect(all.result?.nextPageToken).toBe("");
    expect(all.result?.tasks[0]).not.toHaveProperty("artifacts");
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await list({ contextId, pageSize: 2, ...(token ? { pageToken: token } : {}) });
      seen.push(...(page.result?.tasks ?? []).map((t) => t.id));
      token = page.result?.nextPageToken || undefined;
    } while (token);
    expect(seen).toEqual([...ids].reverse());
    const completed = await list({
      contextId,
      status: "TASK_STATE_COMPLETED",
      historyLength: 1,
      includeArtifacts: true,
    });
    expect(completed.result?.tasks).toHaveLength(5);
    expect(answerText(completed.result?.tasks[0] as WireTask)).toBe("listed");
    expect(completed.result?.tasks[0]?.history).toHaveLength(1);
    expect((await list({ contextId, status: "TASK_STATE_FAILED" })).result?.tasks).toEqual([]);
    expect(
      (await list({ contextId, statusTimestampAfter: "2999-01-01T00:00:00Z" })).result?.totalSize,
    ).toBe(0);
    expect((await list({ contextId, pageToken: "garbage!" })).error?.code).toBe(-32602);
    expect((await list({ pageSize: 0 })).error?.code).toBe(-32602);
  });
});

describe("trace context", () => {
  it("takes the trace id from a W3C traceparent header", async () => {
    // Over 512 characters: the answer streams in more than one chunk (answer-stream.ts).
    const answer = "traced ".repeat(200);
    const s = await scenario([{ text: answer, chunkSize: 50 }]);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const sent = await rpc<{ task: WireTask }>(
      "SendMessage",
      { message: userMessage(`t ${s.marker}`) },
      { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } },
    );
    expect(sent.result?.task.metadata?.traceId).toBe(traceId);
    const events = await runInDurableObject(
      env.TASKS.get(env.TASKS.idFromName(sent.result?.task.id as string)),
      (object) => (object as unknown as TaskObject).runtime.log.after(0),
    );
    const final = events.at(-1)?.event as unknown as {
      statusUpdate: { metadata: { traceId: string } };
    };
    expect(final.statusUpdate.metadata.traceId).toBe(traceId);
    // The final answer artifact carries it too: stored, and on the stream's chunks that start
    // and end it (not on every chunk between).
    expect(sent.result?.task.artifacts?.[0]).toMatchObject({
      artifactId: "answer",
      parts: [{ text: answer }],
      metadata: { traceId },
    });
    const chunks = events
      .map((e) => (e.event as { artifactUpdate?: Record<string, unknown> }).artifactUpdate)
      .filter((u): u is Record<string, unknown> => u !== undefined)
      .map((u) => ({
        append: u.append === true,
        lastChunk: u.lastChunk === true,
        traceId: (u.artifact as { metadata?: { traceId?: string } }).metadata?.traceId,
      }));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.at(0)).toEqual({ append: false, lastChunk: false, traceId });
    expect(chunks.at(-1)).toMatchObject({ lastChunk: true, traceId });
    for (const middle of chunks.slice(1, -1)) expect(middle.traceId).toBeUndefined();
    const bad = await rpc<{ task: WireTask }>(
      "SendMessage",
      { message: userMessage(`u ${s.marker}`) },
      { headers: { traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" } },
    );
    expect(bad.result?.task.metadata?.traceId).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
  });
});
