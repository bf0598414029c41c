/**
 * A task outlives its server: the dev server is killed (SIGKILL) mid-task and restarted on the
 * same state directory; the task then finishes, the interrupted turn retried once and its text
 * not repeated. First the alarm alone resumes it (no client request); a second crash is
 * recovered by a client's GetTask.
 */
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel } from "../fake-model/server.ts";
import { answerOf, asTask, stateOf, textRequest, waitForState } from "./client.ts";
import { type DevServer, freePort, freshStateDir, startDevServer } from "./dev-server.ts";

let fake: Awaited<ReturnType<typeof startFakeModel>>;
let server: DevServer | undefined;
let port: number;
const persistDir = freshStateDir();

const vars = () => ({
  ANTHROPIC_BASE_URL: fake.url,
  ANTHROPIC_API_KEY: "e2e-key",
  MODEL_IDLE_TIMEOUT_MS: "1000",
  MODEL_RETRY_BASE_MS: "20",
});

const TEXT = "This answer survives the server being killed in the middle of it.";

beforeAll(async () => {
  fake = await startFakeModel({ port: 0 });
  port = await freePort();
  server = await startDevServer({ port, persistDir, vars: vars() });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function crashMidTask(marker: string): Promise<string> {
  if (!server) throw new Error("no server");
  const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
  const task = asTask(
    await client.sendMessage(textRequest(`survive ${marker}`, { returnImmediately: true })),
  );
  const deadline = Date.now() + 10_000;
  while (answerOf(await client.getTask({ tenant: "", id: task.id })).length < 6) {
    if (Date.now() > deadline) throw new Error("no text streamed");
    await new Promise((r) => setTimeout(r, 30));
  }
  await server.stop("SIGKILL");
  server = undefined;
  return task.id;
}

describe("restart", () => {
  it("resumes from the persisted alarm alone after the server is killed mid-task", async () => {
    const id = `restart-alarm-${crypto.randomUUID()}`;
    fake.store.addScenario({ id, turns: [{ text: TEXT, chunkSize: 3, delayMs: 80 }] });
    const taskId = await crashMidTask(`[[scenario:${id}]]`);
    expect(fake.store.requests(id)).toHaveLength(1);
    server = await startDevServer({ port, persistDir, vars: vars() });
    // No client request: only the object's alarm (set before the model call) can resume the turn.
    const deadline = Date.now() + 30_000;
    while (fake.store.requests(id).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(fake.store.requests(id).map((r) => [r.turnIndex, r.attempt])).toEqual([
      [0, 1],
      [0, 2],
    ]);
    const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
    const done = await waitForState(client, taskId, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toBe(TEXT);
  });

  it("a client's GetTask after a restart resumes the task at once", async () => {
    const id = `restart-get-${crypto.randomUUID()}`;
    fake.store.addScenario({ id, turns: [{ text: TEXT, chunkSize: 3, delayMs: 80 }] });
    const taskId = await crashMidTask(`[[scenario:${id}]]`);
    server = await startDevServer({ port, persistDir, vars: vars() });
    // From the moment the restarted server answers (its start-up time varies with the machine).
    const restartedAt = Date.now();
    const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
    const task = await client.getTask({ tenant: "", id: taskId });
    expect(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]).toContain(stateOf(task));
    const done = await waitForState(client, taskId, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toBe(TEXT);
    expect(Date.now() - restartedAt).toBeLessThan(10_000);
    expect(fake.store.requests(id)).toHaveLength(2);
  });
});
