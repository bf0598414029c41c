/**
 * SSE streams: SendStreamingMessage from the first event to the close, live delivery,
 * SubscribeToTask mid-task, reconnection with Last-Event-ID, keepalives, several subscribers.
 */
import { describe, expect, it } from "vitest";
import {
  answerText,
  fetchWorker,
  postRpc,
  type RpcResponse,
  rpc,
  sendTask,
  userMessage,
  type WireTask,
} from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import {
  applyChunks,
  type ArtifactChunk as Chunk,
  collectSse,
  type StreamResult as Result,
  sseEvents,
} from "../helpers/sse.ts";
import { until } from "../helpers/until.ts";

const startWorking = (text: string) =>
  sendTask({ message: userMessage(text), configuration: { returnImmediately: true } });

/** A task that ran to its end, answering `answer`. */
async function finishedTask(answer: string): Promise<WireTask> {
  const s = await scenario([{ text: answer }]);
  return sendTask({ message: userMessage(`finish ${s.marker}`) });
}

/** SubscribeToTask over JSON-RPC, after event `lastEventId` when given; every event to the end. */
const subscribe = async (id: string, lastEventId?: string) =>
  collectSse(
    await postRpc(
      "/",
      "SubscribeToTask",
      { id },
      lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId },
    ),
  );

describe("streaming", () => {
  it("SendStreamingMessage: Task first, status updates, answer chunks, final status, then the stream closes", async () => {
    const s = await scenario([{ text: "Streaming works end to end.", chunkSize: 5, delayMs: 5 }]);
    const response = await postRpc("/", "SendStreamingMessage", {
      message: userMessage(`stream ${s.marker}`),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await collectSse(response);
    const results = events.map((e) => e.body.result as Result);
    expect(Object.keys(results[0] ?? {})).toEqual(["task"]);
    expect(results[0]?.task?.status).toMatchObject({ state: "TASK_STATE_SUBMITTED" });
    expect(results[1]?.statusUpdate?.status).toMatchObject({ state: "TASK_STATE_WORKING" });
    const last = results.at(-1)?.statusUpdate as {
      status: { state: string };
      metadata: { traceId: string };
    };
    expect(last.status.state).toBe("TASK_STATE_COMPLETED");
    expect(last.metadata.traceId).toMatch(/^[0-9a-f]{32}$/);
    const chunks = results
      .filter((r) => r.artifactUpdate)
      .map((r) => r.artifactUpdate as unknown as Chunk);
    expect(chunks[0]?.append).toBeUndefined();
    expect(chunks.slice(1).every((c) => c.append)).toBe(true);
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    expect(applyChunks(results).text).toBe("Streaming works end to end.");
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(events.every((e) => e.body.id === 1)).toBe(true);
  });

  it("delivers answer chunks while the model is still generating", async () => {
    // Ten chunks 200 ms apart: the model takes at least 1.8 s, so a stream relayed live spreads
    // its chunks well past 500 ms even when a loaded machine delays the first one.
    const s = await scenario([
      { text: "one two three four five six seven eight nine ten", chunkSize: 5, delayMs: 200 },
    ]);
    const response = await postRpc("/", "SendStreamingMessage", {
      message: userMessage(`live ${s.marker}`),
    });
    const arrivals: Array<{ at: number; result: Result }> = [];
    for await (const event of sseEvents(response)) {
      arrivals.push({
        at: Date.now(),
        result: (JSON.parse(event.data) as RpcResponse).result as Result,
      });
    }
    const firstChunk = arrivals.find((a) => a.result.artifactUpdate);
    const finished = arrivals.at(-1);
    expect(firstChunk && finished).toBeTruthy();
    expect((finished?.at ?? 0) - (firstChunk?.at ?? 0)).toBeGreaterThan(500);
    expect(arrivals.filter((a) => a.result.artifactUpdate).length).toBeGreaterThan(3);
  });

  it("SubscribeToTask mid-task opens with the current Task, then live events to the end", async () => {
    // Long enough (about 1.5 s) that a loaded machine still subscribes before it ends.
    const s = await scenario([{ text: "x".repeat(30), chunkSize: 2, delayMs: 100 }]);
    const task = await startWorking(`sub ${s.marker}`);
    await until(
      () => rpc<WireTask>("GetTask", { id: task.id }),
      (r) => answerText(r.result as WireTask).length > 0,
    );
    const events = await subscribe(task.id);
    const results = events.map((e) => e.body.result as Result);
    const snapshot = results[0]?.task as unknown as WireTask;
    expect(snapshot.status.state).toBe("TASK_STATE_WORKING");
    const partial = answerText(snapshot);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial + applyChunks(results.slice(1)).text).toBe("x".repeat(30));
    expect(results.at(-1)?.statusUpdate?.status).toMatchObject({ state: "TASK_STATE_COMPLETED" });
    expect(Number(events[1]?.id)).toBe(Number(events[0]?.id) + 1);
  });

  it("a reconnect with Last-Event-ID gets exactly what it missed", async () => {
    const s = await scenario([{ text: "0123456789abcdefghij", chunkSize: 2, delayMs: 60 }]);
    const response = await postRpc("/", "SendStreamingMessage", {
      message: userMessage(`resume ${s.marker}`),
    });
    const seen: Array<{ id: string | null; result: Result }> = [];
    for await (const event of sseEvents(response)) {
      seen.push({ id: event.id, result: (JSON.parse(event.data) as RpcResponse).result as Result });
      if (seen.filter((e) => e.result.artifactUpdate).length === 3) break;
    }
    const taskId = String(seen[0]?.result.task?.id);
    const lastId = seen.at(-1)?.id as string;
    const rest = await subscribe(taskId, lastId);
    expect(Number(rest[0]?.id)).toBe(Number(lastId) + 1);
    const all = [...seen.map((e) => e.result), ...rest.map((e) => e.body.result as Result)];
    const { text, appended } = applyChunks(all);
    expect(text).toBe("0123456789abcdefghij");
    const firstChunk = all.find((r) => r.artifactUpdate)?.artifactUpdate as unknown as
      | Chunk
      | undefined;
    expect(appended).toBe(text.length - (firstChunk?.artifact.parts[0]?.text.length ?? 0));
    const final = await rpc<WireTask>("GetTask", { id: taskId });
    expect(answerText(final.result as WireTask)).toBe(text);
  });

  it("Last-Event-ID after the task finished replays the missed events instead of refusing", async () => {
    const done = await finishedTask("finished");
    const replay = await subscribe(done.id, "2");
    expect(Number(replay[0]?.id)).toBe(3);
    expect((replay.at(-1)?.body.result as Result | undefined)?.statusUpdate?.status).toMatchObject({
      state: "TASK_STATE_COMPLETED",
    });
  });

  it("Last-Event-ID at or past an ended task's last event: nothing, then the stream closes, both bindings", async () => {
    const done = await finishedTask("short");
    const all = await subscribe(done.id, "0");
    const last = Number(all.at(-1)?.id);
    for (const after of [last, last + 1, 7_000]) {
      const lastEventId = { "Last-Event-ID": String(after) };
      const rpcStream = await postRpc("/", "SubscribeToTask", { id: done.id }, lastEventId);
      expect(rpcStream.status).toBe(200);
      expect(rpcStream.headers.get("content-type")).toBe("text/event-stream");
      expect(await collectSse(rpcStream)).toEqual([]);
      const restStream = await fetchWorker(`/tasks/${done.id}:subscribe`, {
        headers: { "A2A-Version": "1.0", ...lastEventId },
      });
      expect(restStream.status).toBe(200);
      expect(await restStream.text()).toBe("");
    }
  });

  it("sends keepalive comments while the model is quiet", async () => {
    const s = await scenario([{ text: "abc", chunkSize: 1, delayMs: 330 }]);
    const response = await postRpc("/", "SendStreamingMessage", {
      message: userMessage(`quiet ${s.marker}`),
    });
    const raw = await response.text();
    expect(raw).toContain(": keepalive\n\n");
    expect(raw).toContain("TASK_STATE_COMPLETED");
  });

  it("broadcasts the same events to several subscribers", async () => {
    const s = await scenario([{ text: "shared stream", chunkSize: 2, delayMs: 40 }]);
    const task = await startWorking(`many ${s.marker}`);
    const [a, b] = await Promise.all([subscribe(task.id), subscribe(task.id)]);
    const tail = (events: typeof a) =>
      events.filter((e) => Number(e.id) > 4).map((e) => `${e.id}:${JSON.stringify(e.body.result)}`);
    expect(tail(a).length).toBeGreaterThan(0);
    expect(tail(a)).toEqual(tail(b));
  });

  it("answers errors before the stream as plain JSON-RPC errors", async () => {
    const response = await postRpc("/", "SendStreamingMessage", {
      message: userMessage("x", { taskId: "missing-task" }),
    });
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(((await response.json()) as RpcResponse).error?.code).toBe(-32001);
  });
});
