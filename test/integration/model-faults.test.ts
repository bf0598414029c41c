/**
 * Each fault of the model API, injected by the scripted model at the HTTP level and met by the
 * real SDK path: overload (529) and server errors (500) back off and retry; a server's
 * `retry-after-ms` and `retry-after` set the wait before the retry (read from the schedule, not
 * timed); a stream cut short (an `error` event inside it, an end before `message_stop`, a
 * dropped connection) is retried, counted apart from the other faults, and a stream client sees
 * its text once; when retries run out, the task says which error and how often.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { expectCompleted, rpc, sendTask, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { applyChunks, streamedResults } from "../helpers/sse.ts";
import { startTask } from "../helpers/tasks.ts";
import { until } from "../helpers/until.ts";

/** MODEL_MAX_RETRIES in the test configuration (wrangler.toml). */
const MAX_RETRIES = 4;
const TEXT = "Every fault of the model API is met by its own retry, and this text arrives once.";
const OVERLOADED = { status: 529, type: "overloaded_error" };

const send = (text: string) => sendTask({ message: userMessage(text) });

/** Attempts 1..n (1-based). */
const attempts = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The three ways a stream is cut short, on attempts `on`. */
const CUTS: Record<string, (on: number[]) => Partial<Turn>> = {
  "an error event inside the stream": (on) => ({
    midStreamError: { afterChunks: 3, type: "overloaded_error", attempts: on },
  }),
  "an end before message_stop": (on) => ({ cut: { afterChunks: 3, how: "end", attempts: on } }),
  "a dropped connection": (on) => ({ cut: { afterChunks: 3, how: "drop", attempts: on } }),
};

describe("model faults", () => {
  it("backs off and retries overload (529) and server errors (500), then completes", async () => {
    const s = await scenario([
      { text: TEXT, errors: [OVERLOADED, { status: 500, type: "api_error" }] },
    ]);
    expectCompleted(await send(`overload ${s.marker}`), TEXT);
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  for (const [header, error, waitMs] of [
    ["retry-after-ms", { ...OVERLOADED, retryAfterMs: 45_000 }, 45_000],
    ["retry-after", { status: 429, type: "rate_limit_error", retryAfter: 30 }, 30_000],
  ] as const) {
    it(`waits as long as the server's ${header} asks before the retry`, async () => {
      const s = await scenario([{ text: TEXT, errors: [error] }]);
      const task = await startTask(`wait ${s.marker}`);
      const stub = env.TASKS.get(env.TASKS.idFromName(task.id));
      // Once the failed call is recorded, the loop's next run is due no sooner than it asked.
      const { failedAt, dueAt } = await until(
        () =>
          runInDurableObject(stub, (instance) => {
            const rt = (instance as unknown as TaskObject).runtime;
            const failed = rt.modelCalls.all().find((c) => c.error !== null);
            return { failedAt: failed?.endedAt, dueAt: rt.scheduler.get("loop")?.dueAt };
          }),
        (seen) => seen.failedAt !== undefined && seen.dueAt !== undefined,
      );
      expect(dueAt).toBeGreaterThanOrEqual((failedAt ?? 0) + waitMs);
      await rpc("CancelTask", { id: task.id });
    });
  }

  for (const [how, cut] of Object.entries(CUTS)) {
    it(`retries ${how}, counted apart from other faults, and streams its text once`, async () => {
      // Attempt 1 is overloaded; attempts 2..MAX_RETRIES+1 are cut: more failed attempts than
      // MODEL_MAX_RETRIES, but neither kind ran out of its own retries.
      const s = await scenario([
        { text: TEXT, chunkSize: 4, errors: [OVERLOADED], ...cut(attempts(2, MAX_RETRIES + 1)) },
      ]);
      const results = await streamedResults("SendStreamingMessage", {
        message: userMessage(`cut ${s.marker}`),
      });
      const final = results.at(-1)?.statusUpdate?.status as { state: string };
      expect(final.state).toBe("TASK_STATE_COMPLETED");
      const { text, appended, chunks } = applyChunks(results);
      expect(text).toBe(TEXT);
      // The client got each character once: one opening chunk, then only new text appended.
      const opening = chunks.filter((c) => !c.append);
      expect(opening).toHaveLength(1);
      expect((opening[0]?.artifact.parts[0]?.text ?? "").length + appended).toBe(TEXT.length);
      expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual(
        attempts(1, MAX_RETRIES + 2),
      );
    });
  }

  it("when retries run out, the task says which error and how often each fault happened", async () => {
    const s = await scenario([
      {
        text: TEXT,
        chunkSize: 4,
        errors: [OVERLOADED, OVERLOADED],
        cut: { afterChunks: 2, how: "drop", attempts: attempts(3, MAX_RETRIES + 3) },
      },
    ]);
    const task: WireTask = await send(`give up ${s.marker}`);
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    const message = task.status.message?.parts[0]?.text ?? "";
    expect(message).toMatch(
      new RegExp(
        `^The model call failed after ${MAX_RETRIES + 3} attempts: the model stream was cut \\(.+\\)\\. Failed attempts: 2 × overloaded, ${MAX_RETRIES + 1} × cut stream\\.$`,
      ),
    );
  });
});
