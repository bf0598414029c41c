/**
 * Task generations under `wrangler dev`, as a client over HTTP+JSON sees them (raw fetch: the
 * official SDK has no 1.1 fields yet): activated by A2A-Extensions and echoed; a task paused for
 * input is long-polled (LONG_POLL_SECONDS=2 here), a client that leaves a long poll takes nothing
 * with it, a stale ifGenerationMatch is refused with 409, the matching one is taken, and the long
 * poll then answers the moved task.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERATIONS_EXTENSION } from "../../src/protocol/extensions.ts";
import { askChoice, textToolTurn as tool } from "../helpers/turns.ts";
import type { ScriptedHarness } from "./dev-server.ts";
import { startScriptedHarness } from "./dev-server.ts";
import { addScenario } from "./scenarios.ts";

let harness: ScriptedHarness;
const HEADERS = {
  "content-type": "application/json",
  "A2A-Version": "1.0",
  "A2A-Extensions": GENERATIONS_EXTENSION,
};

type GenTask = { id: string; generation: string; status: { state: string } };

beforeAll(async () => {
  harness = await startScriptedHarness({ LONG_POLL_SECONDS: "2" });
});

afterAll(async () => {
  await harness?.stop();
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
  it("long-polls a paused task, refuses a stale send, and answers the task once it moved", async () => {
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

    // Nothing moves it: the long poll answers at the cap with the task as it was.
    const idle = await longPoll(paused.id, at);
    expect(idle).toMatchObject({ generation: at, status: { state: "TASK_STATE_INPUT_REQUIRED" } });

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

    // A client's loop: poll until the task moves, while the matching reply is taken.
    const polls = (async () => {
      const answers: GenTask[] = [];
      for (let last = await longPoll(paused.id, at); ; last = await longPoll(paused.id, at)) {
        answers.push(last);
        if (last.generation !== at) return answers;
      }
    })();
    const taken = await send(reply(paused.id, at));
    expect(taken.status).toBe(200);
    const answers = await polls;
    // Every answer before the move is the paused task; the last one is past it.
    for (const early of answers.slice(0, -1))
      expect(early).toMatchObject({
        generation: at,
        status: { state: "TASK_STATE_INPUT_REQUIRED" },
      });
    const moved = answers.at(-1);
    expect(Number(moved?.generation)).toBeGreaterThan(Number(at));
    expect(moved?.status.state).not.toBe("TASK_STATE_INPUT_REQUIRED");
  });
});
