/**
 * Task generations (the A2A 1.1 draft's `generation`, `currentGeneration` and `ifGenerationMatch`
 * under the extension urn:a2a-edge-harness:ext:generations:v1, activated per request by the
 * A2A-Extensions header and echoed in the response's): tasks and every stream event carry the
 * generation, one more per event; GetTask with `currentGeneration` holds until the task moves past
 * it (or LONG_POLL_SECONDS), woken by the task's own event; a send whose `ifGenerationMatch` is
 * stale is refused with TaskGenerationMismatchError (-32010, HTTP 409); over JSON-RPC and HTTP+JSON
 * v1.0. Without the extension, nothing changes.
 */
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { GENERATIONS_EXTENSION } from "../../src/protocol/extensions.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import worker from "../../src/worker.ts";
import { fetchWorker, postRpc, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import { collectSse, sseEvents } from "../helpers/sse.ts";
import { askChoice, textToolTurn as tool } from "../helpers/turns.ts";

const EXT = { "A2A-Extensions": GENERATIONS_EXTENSION };
type GenTask = WireTask & { generation?: string; status: { state: string } };

/** A task paused in input-required (asking for a colour), sent with `headers`. */
async function pausedTask(headers: Record<string, string> = EXT): Promise<GenTask> {
  const s = await scenario([
    tool("ask_user", askChoice("Which colour?", "colour", ["blue", "green"])),
    { text: "Using blue." },
  ]);
  const sent = await rpc<{ task: GenTask }>(
    "SendMessage",
    { message: userMessage(`make a report ${s.marker}`) },
    { headers },
  );
  const task = sent.result?.task as GenTask;
  expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
  return task;
}

/** The colour answer to a paused task, as SendMessage params (`configuration` when given). */
const answer = (taskId: string, configuration?: Record<string, unknown>) => ({
  message: userMessage("blue", { taskId }),
  ...(configuration ? { configuration } : {}),
});

/** How many long polls task `id`'s object holds: its event log's listeners past its streams' one. */
const heldPolls = (id: string) =>
  runInDurableObject(
    env.TASKS.get(env.TASKS.idFromName(id)),
    (instance) => (instance as unknown as TaskObject).runtime.log.listeners - 1,
  );

/** Each streamed result's generation and SSE id, and its kind. */
function generations(events: Array<{ id: string | null; result: Record<string, unknown> }>) {
  return events.map(({ id, result }) => {
    const [kind, value] = Object.entries(result)[0] ?? [];
    return { id, kind, generation: (value as { generation?: string } | undefined)?.generation };
  });
}

describe("task generations", () => {
  it("are declared in the card and echoed in A2A-Extensions only when asked for", async () => {
    const card = (await (
      await fetchWorker("/.well-known/agent-card.json", { headers: { "A2A-Version": "1.0" } })
    ).json()) as { capabilities: { extensions: Array<{ uri: string }> } };
    expect(card.capabilities.extensions.map((e) => e.uri)).toContain(GENERATIONS_EXTENSION);
    const task = await pausedTask();
    const asked = await postRpc("/", "GetTask", { id: task.id }, EXT);
    expect(asked.headers.get("A2A-Extensions")).toBe(GENERATIONS_EXTENSION);
    const plain = await postRpc("/", "GetTask", { id: task.id });
    expect(plain.headers.get("A2A-Extensions")).toBeNull();
  });

  it("ride on every event of a stream, one more per event, equal to its SSE id (JSON-RPC)", async () => {
    const s = await scenario([{ text: "one two three four", chunkSize: 4 }]);
    const response = await postRpc(
      "/",
      "SendStreamingMessage",
      { message: userMessage(`count ${s.marker}`) },
      EXT,
    );
    const events = (await collectSse(response)).map((e) => ({
      id: e.id,
      result: e.body.result as Record<string, unknown>,
    }));
    const seen = generations(events);
    expect(seen[0]).toMatchObject({ kind: "task", generation: "1" });
    expect(seen.some((e) => e.kind === "artifactUpdate")).toBe(true);
    expect(seen.some((e) => e.kind === "statusUpdate")).toBe(true);
    seen.forEach((e, i) => {
      expect(e.generation).toBe(String(i + 1));
      expect(e.id).toBe(e.generation);
    });
    const taskId = (events[0]?.result.task as { id: string } | undefined)?.id;
    const read = await rpc<GenTask>("GetTask", { id: taskId }, { headers: EXT });
    expect(read.result?.generation).toBe(String(seen.length));
  });

  it("ride on the HTTP+JSON stream, task and send answers too", async () => {
    const s = await scenario([{ text: "alpha beta", chunkSize: 3 }]);
    const response = await fetchWorker("/message:stream", {
      method: "POST",
      headers: { "A2A-Version": "1.0", ...EXT },
      body: JSON.stringify({ message: userMessage(`rest ${s.marker}`) }),
    });
    expect(response.headers.get("A2A-Extensions")).toBe(GENERATIONS_EXTENSION);
    const events: Array<{ id: string | null; result: Record<string, unknown> }> = [];
    for await (const e of sseEvents(response))
      events.push({ id: e.id, result: JSON.parse(e.data) as Record<string, unknown> });
    const seen = generations(events);
    expect(seen.map((e) => e.generation)).toEqual(seen.map((_, i) => String(i + 1)));
    const taskId = (events[0]?.result.task as { id: string } | undefined)?.id;
    const read = await fetchWorker(`/tasks/${taskId}`, {
      headers: { "A2A-Version": "1.0", ...EXT },
    });
    expect(((await read.json()) as GenTask).generation).toBe(String(seen.length));
    const paused = await pausedTask();
    expect(Number(paused.generation)).toBeGreaterThan(1);
  });

  it("GetTask with currentGeneration holds until the task moves, then answers it", async () => {
    const task = await pausedTask();
    const at = Number(task.generation);
    const order: string[] = [];
    const held = rpc<GenTask>(
      "GetTask",
      { id: task.id, currentGeneration: String(at) },
      { headers: EXT },
    ).then((answered) => {
      order.push("answered");
      return answered;
    });
    // The task object holds the long poll, which has not answered.
    await expect.poll(() => heldPolls(task.id)).toBe(1);
    expect(order).toEqual([]);
    order.push("moved");
    const sent = await rpc<{ task: GenTask }>("SendMessage", answer(task.id), { headers: EXT });
    expect(sent.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    const moved = (await held).result as GenTask;
    expect(order).toEqual(["moved", "answered"]);
    expect(Number(moved.generation)).toBeGreaterThan(at);
    expect(moved.status.state).not.toBe("TASK_STATE_INPUT_REQUIRED");
    expect(await heldPolls(task.id)).toBe(0);
  });

  it("GetTask with a currentGeneration the task is past answers at once (REST query too)", async () => {
    const task = await pausedTask();
    const behind = Number(task.generation) - 1;
    const read = await rpc<GenTask>(
      "GetTask",
      { id: task.id, currentGeneration: behind },
      { headers: EXT },
    );
    expect(read.result?.generation).toBe(task.generation);
    const rest = await fetchWorker(`/tasks/${task.id}?currentGeneration=${behind}`, {
      headers: { "A2A-Version": "1.0", ...EXT },
    });
    expect(((await rest.json()) as GenTask).generation).toBe(task.generation);
    const bad = await rpc("GetTask", { id: task.id, currentGeneration: "soon" }, { headers: EXT });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toContain("params.currentGeneration");
  });

  it("a long poll ends at LONG_POLL_SECONDS with the task as it is, and lets go of it", async () => {
    const task = await pausedTask();
    const brief = { ...env, LONG_POLL_SECONDS: "1" } as Env;
    const response = await worker.fetch(
      new Request("http://harness.test/", {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0", ...EXT },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "GetTask",
          params: { id: task.id, currentGeneration: task.generation },
        }),
      }),
      brief,
      createExecutionContext(),
    );
    const held = ((await response.json()) as { result: GenTask }).result;
    expect(held.generation).toBe(task.generation);
    expect(held.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(await heldPolls(task.id)).toBe(0);
  });

  it("refuses a send whose ifGenerationMatch is stale: -32010 over JSON-RPC, 409 over REST", async () => {
    const task = await pausedTask();
    const stale = Number(task.generation) - 1;
    const refused = await rpc("SendMessage", answer(task.id, { ifGenerationMatch: stale }), {
      headers: EXT,
    });
    expect(refused.error?.code).toBe(-32010);
    expect(refused.error?.data?.[0]).toEqual({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "TASK_GENERATION_MISMATCH",
      domain: "a2a-protocol.org",
      metadata: {
        taskId: task.id,
        expectedGeneration: String(stale),
        currentGeneration: task.generation,
      },
    });
    const streamed = await postRpc(
      "/",
      "SendStreamingMessage",
      answer(task.id, { ifGenerationMatch: String(stale) }),
      EXT,
    );
    expect(((await streamed.json()) as { error: { code: number } }).error.code).toBe(-32010);
    const rest = await fetchWorker("/message:send", {
      method: "POST",
      headers: { "A2A-Version": "1.0", ...EXT },
      body: JSON.stringify(answer(task.id, { ifGenerationMatch: String(stale) })),
    });
    expect(rest.status).toBe(409);
    const body = (await rest.json()) as {
      error: { code: number; status: string; details: unknown[] };
    };
    expect(body.error).toMatchObject({ code: 409, status: "ABORTED" });
    expect(body.error.details[0]).toMatchObject({ reason: "TASK_GENERATION_MISMATCH" });
    // Still waiting; the matching generation is taken.
    const taken = await rpc<{ task: GenTask }>(
      "SendMessage",
      answer(task.id, { ifGenerationMatch: task.generation }),
      { headers: EXT },
    );
    expect(taken.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("without the extension: no generations, params ignored, answers byte for byte as before", async () => {
    const other = { "A2A-Extensions": "https://example.com/ext/other/v1" };
    const task = await pausedTask({});
    expect(task).not.toHaveProperty("generation");
    const plain = await postRpc("/", "GetTask", { id: task.id });
    const unrelated = await postRpc("/", "GetTask", { id: task.id }, other);
    expect(unrelated.headers.get("A2A-Extensions")).toBeNull();
    expect(await unrelated.text()).toBe(await plain.text());
    // currentGeneration does not hold; a stale ifGenerationMatch does not refuse.
    const read = await rpc<GenTask>("GetTask", { id: task.id, currentGeneration: 99 });
    expect(read.result).not.toHaveProperty("generation");
    expect(read.result?.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const s = await scenario([{ text: "streamed" }]);
    const events = await collectSse(
      await postRpc("/", "SendStreamingMessage", { message: userMessage(`s ${s.marker}`) }),
    );
    expect(JSON.stringify(events.map((e) => e.body))).not.toContain('"generation"');
    const sent = await rpc<{ task: GenTask }>(
      "SendMessage",
      answer(task.id, { ifGenerationMatch: 0 }),
    );
    expect(sent.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(sent.result?.task).not.toHaveProperty("generation");
  });
});
