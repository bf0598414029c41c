/**
 * Task generations under `wrangler dev`, as a client over HTTP+JSON sees them (raw fetch: the
 * official SDK has no 1.1 fields yet): activated by A2A-Extensions and echoed; a client that
 * leaves a long poll of a task paused for input takes nothing with it, a stale ifGenerationMatch is
 * refused with 409, the matching one is taken, and a long poll started before it answers the moved
 * task (the cap, LONG_POLL_SECONDS, is 25 s here: the reply lands well before it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERATIONS_EXTENSION } from "../../src/protocol/extensions.ts";
import { askChoice, textToolTurn as tool } from "../helpers/turns.ts";
import { addScenario } from "./scenarios.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

let harness: SharedHarness;
const HEADERS = {
  "content-type": "application/json",
  "A2A-Version": "1.0",
  "A2A-Extensions": GENERATIONS_EXTENSION,
};

type GenTask = { id: string; generation: string; status: { state: string } };

beforeAll(async () => {
  harness = await sharedScriptedHarness();
});

afterAll(async () => {
  await harness?.release();
});

/** POST /message:send with `body`; the response. */
const send = (body: unknown) =>
  fetch(`${harness.server.url}/message:send`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify(body),
  });

/** GET /tasks/{id}?currentGeneration=N: the task once it moved past N, or at the cap. */
async function longPoll(id: string, after: string, signal?: AbortSignal): Promise<GenTask> {
  const url = `${harness.server.url}/tasks/${id}?currentGeneration=${after}`;
  const response = await fetch(url, { headers: HEADERS, ...(signal ? { signal } : {}) });
  expect(response.headers.get("A2A-Extensions")).toBe(GENERATIONS_EXTENSION);
  return (await response.json()) as GenTask;
}

const reply = (taskId: string, ifGenerationMatch: string) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId, parts: [{ text: "blue" }] },
  configuration: { ifGenerationMatch },
});

describe("task generations over wrangler dev", () => {
  it("holds a long poll of a paused task until a matching reply moves it; refuses a stale one", async () => {
    const s = addScenario(harness.fake.store, [
      tool("ask_user", askChoice("Which colour?", "colour", ["blue", "green"])),
      { text: "Using blue." },
    ]);
    const started = await send({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: s.marker }] },
    });
    expect(started.headers.get("A2A-Extensions")).toBe(GENERATIONS_EXTENSION);
    const paused = ((await started.json()) as { task: GenTask }).task;
    expect(paused.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const at = paused.generation;

    // A client that goes away mid-poll: the server carries on.
    const leaving = new AbortController();
    const left = longPoll(paused.id, at, leaving.signal).catch((error: unknown) => error);
    leaving.abort();
    expect(await left).toBeInstanceOf(Error);

    const stale = await send(reply(paused.id, String(Number(at) - 1)));
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({
      error: { code: 409, status: "ABORTED", details: [{ reason: "TASK_GENERATION_MISMATCH" }] },
    });

    // A long poll started before the reply answers only once the reply moved the task.
    const held = longPoll(paused.id, at);
    const taken = await send(reply(paused.id, at));
    expect(taken.status).toBe(200);
    const moved = await held;
    expect(Number(moved.generation)).toBeGreaterThan(Number(at));
    expect(moved.status.state).not.toBe("TASK_STATE_INPUT_REQUIRED");
  });
});
