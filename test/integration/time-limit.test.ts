/**
 * The wall-clock limit per task (MAX_TASK_SECONDS, 7200 s by default, as here): a task past it
 * completes with stopReason "time_limit", between turns after a restart and during a turn in
 * flight; time waiting for a person is not counted. The clock is moved back in the task's row
 * (as if the task had worked that long), so nothing here waits for time to pass.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TaskObject } from "../../src/task/task-object.ts";
import { answerText, sendTask, userMessage, type WireTask } from "../helpers/a2a.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { getTask, startTask, untilState } from "../helpers/tasks.ts";
import { taskInput, textToolTurn } from "../helpers/turns.ts";
import { until } from "../helpers/until.ts";

const LIMIT_S = 7200;
const stubOf = (taskId: string) => env.TASKS.get(env.TASKS.idFromName(taskId));

function inObject<R>(
  taskId: string,
  fn: (instance: TaskObject, state: DurableObjectState) => R | Promise<R>,
): Promise<R> {
  return runInDurableObject(stubOf(taskId), (instance, state) =>
    fn(instance as unknown as TaskObject, state),
  );
}

/** As if the task had been working for `seconds` already (its clock's current stretch). */
function workedFor(taskId: string, seconds: number): Promise<void> {
  return inObject(taskId, (instance, state) => {
    const since = new Date(Date.now() - seconds * 1000).toISOString();
    state.storage.sql.exec("UPDATE task SET working_since = ?", since);
    instance.runtime.store.forget();
  });
}

const ended = (id: string) =>
  until(
    () => getTask(id),
    (t) => t.status.state !== "TASK_STATE_WORKING" && t.status.state !== "TASK_STATE_SUBMITTED",
    30_000,
  );
/** The status message's text (a completed task's is its note alone). */
const statusText = (task: WireTask) => task.status.message?.parts[0]?.text ?? "";
const eventKinds = (task: WireTask) =>
  (task.history ?? []).flatMap((m) => m.parts.map((p) => p.data?.kind)).filter(Boolean);

/** A turn that streams a character every 250 ms for minutes: always in flight when checked. */
const SLOW = "Working through it slowly, one character at a time. ".repeat(12).trim();
const slowTurn = { text: SLOW, chunkSize: 1, delayMs: 250, delayAttempts: [1] };

/** A task whose turn is streaming ({@link slowTurn}), already worked past its time limit. */
async function slowTaskPastItsTime(): Promise<{ s: { id: string }; task: WireTask }> {
  const s = await scenario([slowTurn]);
  const task = await startTask(`slow ${s.marker}`);
  await until(
    () => getTask(task.id),
    (t) => answerText(t).length >= 4,
  );
  await workedFor(task.id, LIMIT_S + 1);
  return { s, task };
}

/** The task once it ended, which must be completed at its time limit. */
async function endedAtTimeLimit(taskId: string): Promise<WireTask> {
  const done = await ended(taskId);
  expect(done.status.state).toBe("TASK_STATE_COMPLETED");
  expect(done.metadata?.stopReason).toBe("time_limit");
  return done;
}

/** The loop's alarm comes now (at the deadline, in a deployment) and runs. */
async function alarmNow(taskId: string): Promise<void> {
  await inObject(taskId, (instance) =>
    instance.runtime.scheduler.schedule("loop", "loop", Date.now()),
  );
  // Due at once, the alarm may ring on its own before runDurableObjectAlarm runs it.
  await runDurableObjectAlarm(stubOf(taskId));
}

describe("MAX_TASK_SECONDS", () => {
  it("ends a task past its time after a restart: completed, time_limit, no further model call", async () => {
    const { s, task } = await slowTaskPastItsTime();
    // The object restarts: what it has in memory and the turn in flight are gone.
    await inObject(task.id, (_instance, state) => state.abort(EXPECTED_CRASH)).catch(() => {});
    const done = await endedAtTimeLimit(task.id);
    expect(statusText(done)).toMatch(
      /the time limit \(7200 s of work, MAX_TASK_SECONDS\) was reached\. PROGRESS\.json lists nothing remaining\.$/,
    );
    expect(eventKinds(done)).toContain("time_limit");
    // The restarted object ran no turn again: the deadline is checked before each step.
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1]);
  });

  it("stops a turn in flight at the deadline, keeping the text it streamed", async () => {
    const { s, task } = await slowTaskPastItsTime();
    // The alarm comes while the turn still streams.
    await alarmNow(task.id);
    const done = await endedAtTimeLimit(task.id);
    expect(statusText(done)).toMatch(
      /^Stopped during a turn: the time limit \(7200 s of work, MAX_TASK_SECONDS\) was reached\./,
    );
    const answer = answerText(done);
    expect(answer.length).toBeGreaterThanOrEqual(4);
    expect(answer.length).toBeLessThan(SLOW.length);
    expect(SLOW.startsWith(answer)).toBe(true);
    expect((await modelRequests(s.id)).map((r) => r.attempt)).toEqual([1]);
  });

  it("a task waiting for a sub-agent ends at its deadline and cancels the sub-agent", async () => {
    const child = await scenario([slowTurn]);
    const parent = await scenario([
      textToolTurn(
        "task",
        taskInput("researcher", "slow research", `Research slowly. ${child.marker}`),
      ),
      { text: "never reached" },
    ]);
    const task = await startTask(`delegate ${parent.marker}`);
    // The parent waits for its child; its next step is due at its deadline, not never.
    const waiting = await until(
      () =>
        inObject(task.id, (instance) => ({
          loop: instance.runtime.scheduler.get("loop")?.dueAt ?? null,
          children: instance.runtime.children.all().map((c) => c.id),
          since: instance.runtime.store.record?.clock.workingSince ?? null,
        })),
      (w) => w.children.length === 1 && w.loop !== null && w.loop > Date.now() + 60_000,
    );
    expect(waiting.loop).toBe(Date.parse(waiting.since ?? "") + LIMIT_S * 1000);
    await workedFor(task.id, LIMIT_S + 1);
    await alarmNow(task.id);
    await endedAtTimeLimit(task.id);
    const childId = waiting.children[0] ?? "";
    const canceled = await untilState(childId, "TASK_STATE_CANCELED", 30_000);
    expect(canceled.status.state).toBe("TASK_STATE_CANCELED");
  });

  it("does not count time spent waiting for a person", async () => {
    const s = await scenario([
      textToolTurn("ask_user", { question: "Which one?" }),
      { text: "Thanks, done." },
    ]);
    const asked = await sendTask({ message: userMessage(`ask ${s.marker}`) });
    expect(asked.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const clock = await inObject(asked.id, (instance, state) => {
      // Created, and asking, two hours ago: the person answers only now.
      const earlier = new Date(Date.now() - 2 * LIMIT_S * 1000).toISOString();
      state.storage.sql.exec("UPDATE task SET created_at = ?", earlier);
      const record = instance.runtime.store.record;
      const status = { ...record?.status, timestamp: earlier };
      state.storage.sql.exec("UPDATE task SET status_json = ?", JSON.stringify(status));
      instance.runtime.store.forget();
      return instance.runtime.store.record?.clock;
    });
    expect(clock?.workingSince).toBeNull();
    const answered = await sendTask({
      message: userMessage("The first one.", { taskId: asked.id }),
    });
    expect(answered.status.state).toBe("TASK_STATE_COMPLETED");
    expect(answered.metadata?.stopReason).toBe("end_turn");
  });
});
