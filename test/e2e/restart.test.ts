/**
 * A task outlives its server: the dev server is killed (SIGKILL) mid-task and restarted on the
 * same state directory; the task then finishes, the interrupted turn retried once and its text
 * not repeated. First the alarm alone resumes it (no client request); a second crash is
 * recovered by a client's GetTask.
 */
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerOf, asTask, stateOf, textRequest, waitForState } from "./client.ts";
import { type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";

let harness: ScriptedHarness;

const TEXT = "This answer survives the server being killed in the middle of it.";
/**
 * The first attempt streams for about 9 s (so the kill lands mid-answer however slowly the test
 * polls), the retry at once.
 */
const SLOW_FIRST_ATTEMPT = { text: TEXT, chunkSize: 3, delayMs: 400, delayAttempts: [1] };

beforeAll(async () => {
  harness = await startScriptedHarness({
    MODEL_IDLE_TIMEOUT_MS: "1000",
    MODEL_RETRY_BASE_MS: "20",
  });
});

afterAll(async () => {
  await harness?.stop();
});

async function crashMidTask(marker: string): Promise<string> {
  const { server } = harness;
  const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
  const task = asTask(
    await client.sendMessage(textRequest(`survive ${marker}`, { returnImmediately: true })),
  );
  // Room for a loaded machine: a passing wait ends as soon as text streamed.
  const deadline = Date.now() + 60_000;
  while (answerOf(await client.getTask({ tenant: "", id: task.id })).length < 6) {
    if (Date.now() > deadline) throw new Error("no text streamed");
    await new Promise((r) => setTimeout(r, 30));
  }
  await server.stop("SIGKILL");
  return task.id;
}

describe("restart", () => {
  it("resumes from the persisted alarm alone after the server is killed mid-task", async () => {
    const id = `restart-alarm-${crypto.randomUUID()}`;
    harness.fake.store.addScenario({ id, turns: [SLOW_FIRST_ATTEMPT] });
    const taskId = await crashMidTask(`[[scenario:${id}]]`);
    expect(harness.fake.store.requests(id)).toHaveLength(1);
    const server = await harness.restart();
    // No client request: only the object's alarm (set before the model call) can resume the turn.
    const deadline = Date.now() + 90_000;
    while (harness.fake.store.requests(id).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(harness.fake.store.requests(id).map((r) => [r.turnIndex, r.attempt])).toEqual([
      [0, 1],
      [0, 2],
    ]);
    const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
    const done = await waitForState(client, taskId, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toBe(TEXT);
  });

  it("a client's GetTask after a restart resumes the task at once", async () => {
    const id = `restart-get-${crypto.randomUUID()}`;
    harness.fake.store.addScenario({ id, turns: [SLOW_FIRST_ATTEMPT] });
    const taskId = await crashMidTask(`[[scenario:${id}]]`);
    const server = await harness.restart();
    // How soon it resumes is not asserted (that is the machine's speed): that a request resumes a
    // restarted object at once is test/integration/durability.test.ts's, without a clock.
    const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
    const task = await client.getTask({ tenant: "", id: taskId });
    expect(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]).toContain(stateOf(task));
    const done = await waitForState(client, taskId, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toBe(TEXT);
    expect(harness.fake.store.requests(id)).toHaveLength(2);
  });
});
