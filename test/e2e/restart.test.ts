/**
 * A task outlives its server: the dev server is killed (SIGKILL) mid-task and restarted on the
 * same state directory; the task then finishes, the interrupted turn retried once and its text
 * not repeated. First the alarm alone resumes it (no client request), on the restart rather than
 * at a lease as long as the watchdog's bound; a second crash is recovered by a client's GetTask.
 * A crash during a slow tool call after three file writes resumes the turn at that call: the
 * writes keep their real results and are not made again, the slow call is reported as cut off.
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
    // A lease as long as the watchdog's bound (2 x 60 s + 5 s, as it once was) would outlast the
    // waits below: a resumed task shows that the lease is short and renewed while a step runs.
    MODEL_IDLE_TIMEOUT_MS: "60000",
    MODEL_RETRY_BASE_MS: "20",
    RUN_CODE_TIMEOUT_MS: "60000",
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
    // No client request: only the object's alarm (its lease, renewed while the turn ran) can
    // resume the turn. Well before 125 s, the old lease's length, however slow the machine.
    const deadline = Date.now() + 60_000;
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

  it("a crash during a slow tool call keeps the three writes before it, made once", async () => {
    const id = `restart-tools-${crypto.randomUUID()}`;
    const write = (n: number) => ({
      id: `toolu_write_${n}`,
      name: "write_file",
      input: { path: `part-${n}.md`, content: `part ${n}` },
    });
    const slow = {
      id: "toolu_slow",
      name: "run_code",
      input: {
        language: "javascript",
        code: "export default async () => { await new Promise((r) => setTimeout(r, 45000)); return 1; };",
        timeout_ms: 50_000,
      },
    };
    harness.fake.store.addScenario({
      id,
      turns: [
        { toolUses: [write(1), write(2), write(3), slow] },
        { text: "Checked the parts." },
        { text: "All three parts are there." },
      ],
    });
    const { server } = harness;
    const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
    const task = asTask(
      await client.sendMessage(
        textRequest(`write three parts [[scenario:${id}]]`, { returnImmediately: true }),
      ),
    );
    const filesOf = async (url: string) => {
      const response = await fetch(
        `${url}/api/workspaces/assistant/files?contextId=${task.contextId}`,
      );
      return ((await response.json()) as { files: Array<{ path: string; modified: string }> })
        .files;
    };
    const deadline = Date.now() + 60_000;
    let written = await filesOf(server.url);
    while (!written.some((f) => f.path === "part-3.md")) {
      if (Date.now() > deadline) throw new Error("the writes did not happen");
      await new Promise((r) => setTimeout(r, 50));
      written = await filesOf(server.url);
    }
    // The slow call starts right after the third write and sleeps 45 s: the kill lands inside it.
    await new Promise((r) => setTimeout(r, 1_500));
    await server.stop("SIGKILL");
    const restarted = await harness.restart();
    const again = await new ClientFactory().createFromUrl(`${restarted.url}/agents/assistant/`);
    const done = await waitForState(again, task.id, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toContain("Checked the parts.");
    // The model's next turn got the writes' real results and an honest note on the slow call.
    const next = harness.fake.store.requests(id).find((r) => r.turnIndex === 1);
    const results = new Map<string, { content: string; error: boolean }>();
    const body = next?.body as { messages: Array<{ content: unknown }> } | undefined;
    for (const m of body?.messages ?? [])
      for (const b of Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : [])
        if (b.type === "tool_result")
          results.set(String(b.tool_use_id), { content: String(b.content), error: !!b.is_error });
    for (const n of [1, 2, 3]) {
      expect(results.get(`toolu_write_${n}`)?.error).toBe(false);
      expect(results.get(`toolu_write_${n}`)?.content).toContain(`part-${n}.md`);
    }
    expect(results.get("toolu_slow")).toMatchObject({ error: true });
    expect(results.get("toolu_slow")?.content).toContain("may or may not have taken effect");
    // Made once: each file is as the first run wrote it, not written again after the restart.
    const after = await filesOf(restarted.url);
    for (const n of [1, 2, 3]) {
      const path = `part-${n}.md`;
      expect(after.find((f) => f.path === path)?.modified).toBe(
        written.find((f) => f.path === path)?.modified,
      );
    }
    expect(harness.fake.store.requests(id).filter((r) => r.turnIndex === 0)).toHaveLength(1);
  });
});
