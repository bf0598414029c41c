/**
 * The task object across restarts: a turn cut off mid-stream resumes (on the next request or
 * from the alarm alone) without repeating streamed text; a cut-off turn's tool calls run; the
 * event log replays; hook state, the schedule and index retries survive.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT } from "../../src/loop/turn/repair.ts";
import type { SequencedEvent } from "../../src/protocol/wire.ts";
import { PUSH_JOB } from "../../src/push/push-sender.ts";
import { getTaskIndex } from "../../src/store/d1-index.ts";
import { decodeLines } from "../../src/task/runtime/ndjson.ts";
import { Outbox } from "../../src/task/runtime/outbox.ts";
import { LEASE_MS } from "../../src/task/steps/loop-driver.ts";
import { taskSchema } from "../../src/task/store/schema.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { JOB_ATTEMPTS } from "../../src/task/task-parts.ts";
import { answerText, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { getTask, startTask, untilState } from "../helpers/tasks.ts";
import { until } from "../helpers/until.ts";

const stubOf = (taskId: string) => env.TASKS.get(env.TASKS.idFromName(taskId));

/** Runs `fn` inside the task's object, typed as the TaskObject it is. */
function inObject<R>(
  stub: DurableObjectStub<TaskObject>,
  fn: (instance: TaskObject, state: DurableObjectState) => R | Promise<R>,
): Promise<R> {
  return runInDurableObject(stub, (instance, state) =>
    fn(instance as unknown as TaskObject, state),
  );
}

/** Simulates a crash of the task's object (its in-memory state and in-flight work are lost). */
async function crash(taskId: string): Promise<void> {
  await runInDurableObject(stubOf(taskId), (_instance, state) => {
    state.abort(EXPECTED_CRASH);
  }).catch(() => {});
}

/** Replays the answer chunks of a task's event log like a client; counts appended characters. */
async function replayAnswer(
  taskId: string,
): Promise<{ text: string; appended: number; first: number }> {
  return inObject(stubOf(taskId), (instance) => {
    let text = "";
    let appended = 0;
    let first = 0;
    for (const { event } of instance.runtime.log.after(0)) {
      if (!("artifactUpdate" in event)) continue;
      const piece = event.artifactUpdate.artifact.parts.map((p) => p.text ?? "").join("");
      if (event.artifactUpdate.append) {
        text += piece;
        appended += piece.length;
      } else {
        text = piece;
        first ||= piece.length;
      }
    }
    return { text, appended, first };
  });
}

/** Streamed 4 characters every 60 ms: seconds of turn left when the crash comes after 8. */
const FOX = "The quick brown fox jumps over the lazy dog. ".repeat(3).trim();

/**
 * An answer whose first attempt streams for minutes (a chunk every 250 ms: never silent, so the
 * watchdog stays quiet) and whose retry streams at once: a crash the test makes after the first
 * chunks always lands mid-stream, however slow the machine.
 */
const LONG = `${FOX} `.repeat(12).trim();
const CRASHABLE = { text: LONG, chunkSize: 1, delayMs: 250, delayAttempts: [1] };

describe("durability", () => {
  it("a turn cut off by a crash resumes on the next request without repeating streamed text", async () => {
    const s = await scenario([CRASHABLE]);
    const task = await startTask(`crash me ${s.marker}`);
    await until(
      () => getTask(task.id),
      (t) => answerText(t).length >= 8,
    );
    await crash(task.id);
    const done = await untilState(task.id, "TASK_STATE_COMPLETED", 60_000);
    expect(answerText(done)).toBe(LONG);
    const replay = await replayAnswer(task.id);
    expect(replay.text).toBe(LONG);
    expect(replay.first + replay.appended).toBe(LONG.length);
    const attempts = (await modelRequests(s.id)).map((r) => [r.turnIndex, r.attempt]);
    expect(attempts).toEqual([
      [0, 1],
      [0, 2],
    ]);
  }, 60_000);

  it("the alarm alone resumes a crashed task (runDurableObjectAlarm)", async () => {
    const s = await scenario([CRASHABLE]);
    const task = await startTask(`alarm ${s.marker}`);
    await until(
      () => getTask(task.id),
      (t) => answerText(t).length >= 8,
    );
    await crash(task.id);
    const stub = stubOf(task.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const state = await until(
      () => inObject(stub, (instance) => instance.runtime.store.record?.state),
      (st) => st === "TASK_STATE_COMPLETED",
      60_000,
    );
    expect(state).toBe("TASK_STATE_COMPLETED");
    expect((await replayAnswer(task.id)).text).toBe(LONG);
  });

  it("a streaming create leases its first step from creation, and a crash mid-turn still resumes", async () => {
    const s = await scenario([CRASHABLE]);
    const taskId = crypto.randomUUID();
    const stub = stubOf(taskId);
    const before = Date.now();
    const entry = await inObject(stub, async (instance) => {
      const created = await instance.create(
        {
          taskId,
          contextId: crypto.randomUUID(),
          freshContext: true,
          agent: "assistant",
          owner: "anon-durability",
          traceId: `${"0".repeat(31)}2`,
          message: { messageId: "m", role: "ROLE_USER", parts: [{ text: `lease ${s.marker}` }] },
        },
        { stream: true },
      );
      if (created.ok) await created.value.stream?.cancel();
      return instance.runtime.scheduler.get("loop");
    });
    // The step's lease was written with the task: due LEASE_MS after the task was made, which
    // was after `before` (however long making it took).
    expect(entry?.payload).toEqual({ firstStep: true });
    expect(entry?.dueAt).toBeGreaterThanOrEqual(before + LEASE_MS);
    await until(
      () => getTask(taskId),
      (t) => answerText(t).length >= 8,
    );
    await crash(taskId);
    const done = await untilState(taskId, "TASK_STATE_COMPLETED", 60_000);
    expect(answerText(done)).toBe(LONG);
    expect((await replayAnswer(taskId)).text).toBe(LONG);
  }, 60_000);

  it("runs the calls of a committed tool_use turn that a restart cut off before they started", async () => {
    const s = await scenario([
      { text: "unused" },
      { text: "Recovered after the interrupted tool." },
    ]);
    const taskId = crypto.randomUUID();
    await inObject(stubOf(taskId), async (instance) => {
      await instance.create(
        {
          taskId,
          contextId: crypto.randomUUID(),
          agent: "assistant",
          owner: "anon-durability",
          traceId: `${"0".repeat(31)}1`,
          message: { messageId: "m", role: "ROLE_USER", parts: [{ text: `orphan ${s.marker}` }] },
        },
        { stream: false },
      );
      // As if the object died after committing a tool_use turn but before running the tool.
      instance.runtime.conversation.append({
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_orphan", name: "read_file", input: { path: "x" } },
        ],
      });
    });
    const done = await until(
      () => getTask(taskId),
      (t) => t.status.state !== "TASK_STATE_WORKING",
    );
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(answerText(done)).toBe("Recovered after the interrupted tool.");
    // The call never started (the tool journal has no entry for it): it runs now, and the model
    // gets its real result, not a note that it was interrupted.
    const [request] = await modelRequests(s.id);
    const answered = request?.body.messages[2] as { content: Array<Record<string, unknown>> };
    expect(answered.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_orphan" });
    expect(answered.content[0]?.content).not.toBe(INTERRUPTED_TOOL_RESULT);
    expect(answered.content[0]?.content).toContain("x");
  });

  it("keeps a contiguous event log that replays from any sequence number", async () => {
    const s = await scenario([{ text: "replayable", chunkSize: 3 }]);
    const done = (
      await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(`log ${s.marker}`) })
    ).result?.task as WireTask;
    const stub = stubOf(done.id);
    const seqs = await inObject(stub, (instance) =>
      instance.runtime.log.after(0).map((e) => e.seq),
    );
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const result = await stub.subscribe({ owner: "anonymous", after: 3 });
    if (!result.ok) throw new Error(result.error.message);
    const replayed: number[] = [];
    for await (const entry of decodeLines<SequencedEvent>(result.value)) replayed.push(entry.seq);
    expect(replayed).toEqual(seqs.slice(3));
    const other = await stub.get({ owner: "someone-else" });
    expect(other).toEqual({ ok: false, error: { kind: "not_found", message: "task not found" } });
  });

  it("keeps hook state and the schedule across a crash", async () => {
    const taskId = crypto.randomUUID();
    const stub = stubOf(taskId);
    await inObject(stub, async (instance, state) => {
      // No task is created here: the tables a task's creation makes.
      taskSchema(state.storage.sql).ensure();
      instance.runtime.hookState.set("loop-detection", "edits:a.md", 2);
      await instance.runtime.scheduler.schedule("later", "outbox", Date.now() + 60_000);
      await instance.runtime.scheduler.schedule("sooner", "outbox", Date.now() + 30_000);
      expect(await state.storage.getAlarm()).toBe(instance.runtime.scheduler.get("sooner")?.dueAt);
    });
    await crash(taskId);
    // A stub whose object was reset stays broken; clients get a fresh one per request.
    await inObject(stubOf(taskId), async (instance, state) => {
      expect(instance.runtime.hookState.get("loop-detection", "edits:a.md")).toBe(2);
      expect(instance.runtime.scheduler.due(Date.now() + 45_000).map((e) => e.id)).toEqual([
        "sooner",
      ]);
      await instance.runtime.scheduler.cancel("sooner");
      expect(await state.storage.getAlarm()).toBe(instance.runtime.scheduler.get("later")?.dueAt);
      await instance.runtime.scheduler.cancel("later");
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });

  it("runs a job that throws again with backoff, not at once, and drops it after repeated failures", async () => {
    const stub = stubOf(crypto.randomUUID());
    const failures: number[] = [];
    const before = Date.now();
    await inObject(stub, async (instance, state) => {
      taskSchema(state.storage.sql).ensure();
      instance.runtime.pushSender.deliverDue = async () => {
        failures.push(Date.now());
        throw new Error("a fault the job cannot get past");
      };
      await instance.runtime.scheduler.schedule(PUSH_JOB, PUSH_JOB, Date.now());
    });
    await runDurableObjectAlarm(stub);
    const entry = () => inObject(stub, (instance) => instance.runtime.scheduler.get(PUSH_JOB));
    const retried = await until(entry, (e) => e?.attempts === 1);
    expect(retried?.dueAt).toBeGreaterThanOrEqual(before + 200); // backed off, not due at once
    expect(failures).toHaveLength(1);
    await inObject(stub, async (instance) => {
      await instance.runtime.scheduler.schedule(PUSH_JOB, PUSH_JOB, Date.now(), {
        attempts: JOB_ATTEMPTS - 1,
      });
    });
    await runDurableObjectAlarm(stub);
    expect(await until(entry, (e) => e === null)).toBeNull();
    expect(failures).toHaveLength(2);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
  });

  it("retries the D1 index write from the schedule while D1 is unavailable", async () => {
    const s = await scenario([{ text: "indexed later" }]);
    const taskId = crypto.randomUUID();
    const stub = stubOf(taskId);
    const failingDb = {
      prepare() {
        throw new Error("D1_ERROR: database unavailable");
      },
    } as unknown as D1Database;
    await inObject(stub, async (instance) => {
      instance.runtime.outbox = new Outbox(
        failingDb,
        env.FILES,
        instance.runtime.scheduler,
        instance.runtime.outboxSource,
      );
      await instance.create(
        {
          taskId,
          contextId: crypto.randomUUID(),
          agent: "writer",
          owner: "anon-durability",
          traceId: "a".repeat(32),
          message: { messageId: "m", role: "ROLE_USER", parts: [{ text: `d1 down ${s.marker}` }] },
        },
        { stream: false },
      );
    });
    await untilState(taskId, "TASK_STATE_COMPLETED");
    const pending = await inObject(stub, (instance) =>
      instance.runtime.scheduler.get("outbox:index"),
    );
    expect(pending?.attempts).toBeGreaterThanOrEqual(1);
    expect(await getTaskIndex(env.DB, taskId)).toBeNull();
    await inObject(stub, (instance) => {
      instance.runtime.outbox = new Outbox(
        env.DB,
        env.FILES,
        instance.runtime.scheduler,
        instance.runtime.outboxSource,
      );
    });
    const row = await until(
      () => getTaskIndex(env.DB, taskId),
      (r) => r !== null,
    );
    expect(row?.state).toBe("TASK_STATE_COMPLETED");
    expect(
      await inObject(stub, (instance) => instance.runtime.scheduler.get("outbox:index")),
    ).toBeNull();
  });
});
