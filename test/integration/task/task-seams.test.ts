/**
 * The seams of a task object, tested inside a real object (runInDurableObject, its own SQLite):
 * the scheduler (one alarm for every job, retries with backoff), the event log (numbered, replayed,
 * continued after a restart), the task store (record, versions, history, artifacts), the outbox
 * (index row and artifacts derived from the stores; a failed write retried from the schedule),
 * the runtime's status change (record, event and push queue in one transaction; subscribers told
 * when the task settles) and the alarm's table of jobs. No model is called.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SequencedEvent, TaskStateName } from "../../../src/protocol/wire.ts";
import { getTaskIndex } from "../../../src/store/d1-index.ts";
import { Scheduler } from "../../../src/store/scheduler.ts";
import { beginTask } from "../../../src/task/incoming.ts";
import { decodeLines } from "../../../src/task/runtime/ndjson.ts";
import { Outbox, outboxSourceOf } from "../../../src/task/runtime/outbox.ts";
import type { TaskRuntime } from "../../../src/task/runtime/task-runtime.ts";
import { EventLog } from "../../../src/task/store/event-log.ts";
import { taskSchema } from "../../../src/task/store/schema.ts";
import { TaskStore } from "../../../src/task/store/task-store.ts";
import { WriteUnit } from "../../../src/task/store/write-unit.ts";
import type { TaskObject } from "../../../src/task/task-object.ts";
import { RETENTION_JOB } from "../../../src/task/task-parts.ts";
import { until } from "../../helpers/until.ts";

const OWNER = "anon-seams";

/** Runs `fn` in a fresh task object of its own, its tables created (as a new task's are). */
function inFreshObject<R>(
  fn: (instance: TaskObject, state: DurableObjectState) => R | Promise<R>,
  taskId: string = crypto.randomUUID(),
): Promise<R> {
  const stub = env.TASKS.get(env.TASKS.idFromName(taskId));
  return runInDurableObject(stub, (instance, state) => {
    taskSchema(state.storage.sql).ensure();
    return fn(instance as unknown as TaskObject, state);
  });
}

/** Runs `fn` in a fresh object whose task (`taskId`, a new one by default) has begun. */
function inBegunTask<R>(
  fn: (rt: TaskRuntime, state: DurableObjectState, taskId: string) => R | Promise<R>,
  taskId: string = crypto.randomUUID(),
): Promise<R> {
  return inFreshObject((instance, state) => {
    begin(instance.runtime, taskId);
    return fn(instance.runtime, state, taskId);
  }, taskId);
}

/** `sql`, with the text of every statement it runs recorded. */
function counting(target: SqlStorage): { sql: SqlStorage; statements: string[] } {
  const statements: string[] = [];
  // A proxy of an empty object, not of `target`: the storage meter (on in some other files of the
  // run) makes `exec` a read-only property of `target`, which a proxy of it must return as it is.
  const sql = new Proxy({} as SqlStorage, {
    get(_, key) {
      if (key !== "exec") {
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (query: string, ...bindings: SqlStorageValue[]) => {
        statements.push(query);
        return target.exec(query, ...bindings);
      };
    },
  });
  return { sql, statements };
}

/** Writes a submitted task with one user message into the runtime (no model, no conversation). */
function begin(rt: TaskRuntime, taskId: string, text = "hello"): void {
  beginTask(
    rt,
    {
      taskId,
      contextId: `ctx-${taskId}`,
      agent: "writer",
      owner: OWNER,
      traceId: "b".repeat(32),
      message: { messageId: `m-${taskId}`, role: "ROLE_USER", parts: [{ text }] },
    },
    "writer",
    { name: "test-model", source: "test" },
  );
}

describe("scheduler", () => {
  it("points the one alarm at the earliest entry and gives due entries earliest first", async () => {
    await inFreshObject(async (_instance, state) => {
      const scheduler = new Scheduler(state.storage);
      // Far enough ahead that the alarm does not fire during the test.
      const soon = Date.now() + 60_000;
      await scheduler.schedule("b", "outbox", soon + 10);
      await scheduler.schedule("a", "outbox", soon);
      await scheduler.schedule("c", "outbox", soon + 60_000);
      expect(await state.storage.getAlarm()).toBe(soon);
      expect(scheduler.due(soon + 10).map((e) => e.id)).toEqual(["a", "b"]);
      // A second scheduler reads the same rows: the schedule survives a new instance.
      expect(new Scheduler(state.storage).get("c")?.dueAt).toBe(soon + 60_000);
      await scheduler.cancel("a");
      await scheduler.cancel("b");
      expect(await state.storage.getAlarm()).toBe(soon + 60_000);
      await scheduler.done("c");
      await scheduler.done("never-scheduled");
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });

  it("retries with one more attempt each time, later than now, and keeps payloads", async () => {
    await inFreshObject(async (_instance, state) => {
      const scheduler = new Scheduler(state.storage);
      await scheduler.schedule("job", "context", Date.now(), { payload: { x: 1 } });
      const before = Date.now();
      expect(await scheduler.retry("job", "context")).toBe(1);
      expect(await scheduler.retry("job", "context")).toBe(2);
      const entry = scheduler.get("job");
      expect(entry?.attempts).toBe(2);
      expect(entry?.dueAt).toBeGreaterThan(before);
      expect(new Scheduler(state.storage).get("job")?.attempts).toBe(2);
    });
  });
});

describe("write unit", () => {
  it("joins nested units, runs after-commit actions once the outermost commits, none after a rollback", async () => {
    await inFreshObject((_instance, state) => {
      const unit = WriteUnit.of(state.storage);
      const seen: string[] = [];
      const member = unit.join({
        flush: () => seen.push("flush"),
        committed: () => seen.push("committed"),
        forget: () => seen.push("forget"),
      });
      expect(member).toBeDefined();
      unit.run(() => {
        unit.afterCommit(() => seen.push("outer"));
        unit.run(() => unit.afterCommit(() => seen.push("inner")));
        expect(unit.open).toBe(true);
        seen.push("work");
      });
      expect(unit.open).toBe(false);
      expect(seen).toEqual(["work", "flush", "committed", "outer", "inner"]);
      seen.length = 0;
      expect(() =>
        unit.run(() => {
          unit.afterCommit(() => seen.push("never"));
          throw new Error("no");
        }),
      ).toThrow("no");
      expect(seen).toEqual(["forget"]);
      // Outside a unit an after-commit action runs at once; one that throws undoes nothing.
      unit.afterCommit(() => seen.push("now"));
      const value = unit.run(() => {
        unit.afterCommit(() => {
          throw new Error("late");
        });
        unit.afterCommit(() => seen.push("still"));
        return 7;
      });
      expect(value).toBe(7);
      expect(seen).toEqual(["forget", "now", "flush", "committed", "still"]);
    });
  });
});

describe("event log", () => {
  it("numbers events from 1, tells listeners, replays after a number and continues after a restart", async () => {
    await inFreshObject((_instance, state) => {
      const log = new EventLog(state.storage.sql, WriteUnit.of(state.storage));
      const heard: number[] = [];
      const stop = log.subscribe((entry) => heard.push(entry.seq));
      const status = (text: string) => ({
        statusUpdate: {
          taskId: "t",
          contextId: "c",
          status: {
            state: "TASK_STATE_WORKING" as const,
            timestamp: new Date().toISOString(),
            message: { messageId: text, role: "ROLE_AGENT" as const, parts: [{ text }] },
          },
        },
      });
      expect(log.append(status("one")).seq).toBe(1);
      expect(log.append(status("two")).seq).toBe(2);
      stop();
      log.append(status("three"));
      expect(heard).toEqual([1, 2]);
      expect(log.after(1).map((e) => e.seq)).toEqual([2, 3]);
      expect(log.timeline().map((e) => e.kind)).toEqual(["status", "status", "status"]);
      const reopened = new EventLog(state.storage.sql, WriteUnit.of(state.storage));
      expect(reopened.lastSeq).toBe(3);
      expect(reopened.append(status("four")).seq).toBe(4);
    });
  });

  it("writes a unit's events in one statement at its end, and none of a unit that throws", async () => {
    await inFreshObject((_instance, state) => {
      const { sql, statements } = counting(state.storage.sql);
      const unit = WriteUnit.of(state.storage);
      const log = new EventLog(sql, unit);
      const heard: number[] = [];
      log.subscribe((entry) => heard.push(entry.seq));
      const event = (text: string) => ({
        message: { messageId: text, role: "ROLE_AGENT" as const, parts: [{ text }] },
      });
      statements.length = 0;
      unit.run(() => {
        log.append(event("a"));
        unit.run(() => log.append(event("b"))); // an inner unit joins the outer one
        expect(log.after(0)).toEqual([]); // nothing written yet
        expect(heard).toEqual([]); // nor heard
      });
      expect(statements.filter((q) => q.startsWith("INSERT INTO events"))).toHaveLength(1);
      expect(heard).toEqual([1, 2]);
      expect(log.after(0).map((e) => e.seq)).toEqual([1, 2]);
      const attempt = () =>
        unit.run(() => {
          log.append(event("c"));
          throw new Error("no");
        });
      expect(attempt).toThrow("no");
      expect(heard).toEqual([1, 2]); // a rolled-back event is never heard
      expect(log.lastSeq).toBe(2);
      expect(log.append(event("d")).seq).toBe(3);
      expect(log.after(2).map((e) => e.seq)).toEqual([3]);
    });
  });

  it("keeps a unit's events in one row, read back one by one from any number, old rows beside", async () => {
    await inFreshObject((_instance, state) => {
      const sql = state.storage.sql;
      const unit = WriteUnit.of(state.storage);
      // A row an older version wrote: one event, `last` null.
      const old = {
        message: { messageId: "old", role: "ROLE_AGENT" as const, parts: [{ text: "o" }] },
      };
      sql.exec(
        "INSERT INTO events (seq, kind, body, at) VALUES (1, 'message', ?, 5)",
        JSON.stringify(old),
      );
      const log = new EventLog(sql, unit);
      expect(log.lastSeq).toBe(1);
      const event = (text: string) => ({
        message: { messageId: text, role: "ROLE_AGENT" as const, parts: [{ text }] },
      });
      // A unit of three, one of them longer than a stored value holds (kept in pieces).
      const long = "L".repeat(200_000);
      unit.run(() => {
        log.append(event("a"), 7);
        log.append(event(long), 7);
        log.append(event("c"), 7);
      });
      log.append(event("d"), 9);
      const rows = sql
        .exec<{ seq: number; last: number | null }>("SELECT seq, last FROM events ORDER BY seq")
        .toArray();
      expect(rows).toEqual([
        { seq: 1, last: null },
        { seq: 2, last: 4 },
        { seq: 5, last: null },
      ]);
      const texts = (entries: Array<{ event: unknown }>) =>
        entries.map((e) =>
          (e.event as ReturnType<typeof event>).message.parts[0]?.text.slice(0, 3),
        );
      expect(texts(log.after(0))).toEqual(["o", "a", "LLL", "c", "d"]);
      expect(log.after(2).map((e) => e.seq)).toEqual([3, 4, 5]); // from inside the unit's row
      expect(log.after(3).map((e) => e.seq)).toEqual([4, 5]);
      expect(log.after(4).map((e) => e.seq)).toEqual([5]);
      expect(log.after(5)).toEqual([]);
      expect(log.timeline().map((e) => [e.seq, e.kind, e.at])).toEqual([
        [1, "message", 5],
        [2, "message", 7],
        [3, "message", 7],
        [4, "message", 7],
        [5, "message", 9],
      ]);
      expect(new EventLog(sql, unit).lastSeq).toBe(5);
    });
  });
});

describe("task store", () => {
  it("keeps the record, bumps its version per status, and holds history and artifacts", async () => {
    const taskId = crypto.randomUUID();
    await inFreshObject((instance, state) => {
      const rt = instance.runtime;
      begin(rt, taskId, "first");
      const store = rt.store;
      expect(store.record?.version).toBe(1);
      expect(store.hasSeen(`m-${taskId}`)).toBe(true);
      expect(store.hasSeen("never-sent")).toBe(false);
      store.update({ state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() }, {});
      expect(store.record?.version).toBe(2);
      store.appendHistory({ messageId: "a1", role: "ROLE_AGENT", parts: [{ text: "second" }] });
      store.putArtifact({ artifactId: "x", parts: [{ text: "old" }] });
      store.putArtifact({ artifactId: "x", parts: [{ text: "new" }] });
      const task = store.toTask(1);
      expect(task.history?.map((m) => m.parts[0]?.text)).toEqual(["second"]);
      expect(task.artifacts).toEqual([{ artifactId: "x", parts: [{ text: "new" }] }]);
      expect(store.toTask(0).history).toBeUndefined();
      // What a new instance reads back from SQLite.
      const reread = new TaskStore(state.storage.sql, WriteUnit.of(state.storage));
      expect(reread.record?.state).toBe("TASK_STATE_WORKING");
      expect(reread.record?.version).toBe(2);
      expect(reread.historyAfter(0).map((h) => h.message.parts[0]?.text)).toEqual([
        "first",
        "second",
      ]);
    }, taskId);
  });

  it("writes a task row created in a unit once, at its end, with the status it has then", async () => {
    await inFreshObject((_instance, state) => {
      const { sql, statements } = counting(state.storage.sql);
      const unit = WriteUnit.of(state.storage);
      const store = new TaskStore(sql, unit, true);
      const now = new Date().toISOString();
      const record = {
        id: "t-batch",
        contextId: "c",
        agent: "writer",
        owner: OWNER,
        counters: null,
        traceId: "b".repeat(32),
        parentTaskId: null,
        state: "TASK_STATE_SUBMITTED" as const,
        status: { state: "TASK_STATE_SUBMITTED" as const, timestamp: now },
        metadata: {},
        createdAt: now,
      };
      expect(() =>
        unit.run(() => {
          store.insert(record);
          throw new Error("no");
        }),
      ).toThrow("no");
      expect(statements.filter((q) => !q.startsWith("SELECT"))).toEqual([]);
      expect(store.record).toBeNull();
      statements.length = 0;
      unit.run(() => {
        store.insert(record);
        store.update({ state: "TASK_STATE_WORKING", timestamp: now }, { step: 1 });
      });
      expect(statements.map((q) => q.split(" (")[0])).toEqual(["INSERT INTO task"]);
      const reread = new TaskStore(state.storage.sql, WriteUnit.of(state.storage));
      expect(reread.record).toMatchObject({ state: "TASK_STATE_WORKING", version: 2 });
      expect(reread.record?.metadata).toEqual({ step: 1 });
      // Outside a unit, each change is its own unit and statement.
      store.update({ state: "TASK_STATE_COMPLETED", timestamp: now }, {});
      expect(statements.at(-1)).toMatch(/^UPDATE task /);
    });
  });

  it("rolls its in-memory copies back with a transaction that throws", async () => {
    const taskId = crypto.randomUUID();
    await inFreshObject((instance) => {
      const rt = instance.runtime;
      begin(rt, taskId, "first");
      const before = { task: rt.snapshot(), loop: rt.loopState.get(), seq: rt.log.lastSeq };
      expect(() =>
        rt.unit.run(() => {
          rt.store.appendHistory({ messageId: "x", role: "ROLE_AGENT", parts: [{ text: "lost" }] });
          rt.store.putArtifact({ artifactId: "lost", parts: [{ text: "lost" }] });
          rt.loopState.patch({ turn: 9 });
          rt.hookState.set("h", "k", 1);
          rt.conversation.append({ role: "user", content: "lost" });
          rt.log.append({ task: rt.snapshot() });
          throw new Error("boom");
        }),
      ).toThrow("boom");
      expect(rt.snapshot()).toEqual(before.task);
      expect(rt.loopState.get()).toEqual(before.loop);
      expect(rt.log.lastSeq).toBe(before.seq);
      expect(rt.hookState.get("h", "k")).toBeUndefined();
      expect(rt.conversation.load().some((m) => m.content === "lost")).toBe(false);
    }, taskId);
  });

  it("makes a creation that throws in its unit leave nothing, so it can be made again", async () => {
    const taskId = crypto.randomUUID();
    await inFreshObject((instance, state) => {
      const rt = instance.runtime;
      const create = (fail: boolean) =>
        rt.unit.run(() => {
          begin(rt, taskId, "first");
          rt.setStatus("TASK_STATE_WORKING");
          if (fail) throw new Error("boom");
        });
      expect(() => create(true)).toThrow("boom");
      expect(rt.store.record).toBeNull();
      expect(rt.log.lastSeq).toBe(0);
      const rows = (table: string) =>
        state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
      expect([rows("task"), rows("events"), rows("history")]).toEqual([0, 0, 0]);
      create(false);
      expect(rt.store.record).toMatchObject({ state: "TASK_STATE_WORKING", version: 2 });
      expect(rt.log.after(0).map((e) => Object.keys(e.event)[0])).toEqual(["task", "statusUpdate"]);
      // The unit's two events share one row.
      expect([rows("task"), rows("events"), rows("history")]).toEqual([1, 1, 1]);
    }, taskId);
  });
});

describe("outbox", () => {
  it("derives the index row and finished artifacts from the stores at send time", async () => {
    const taskId = crypto.randomUUID();
    await inFreshObject((instance) => {
      const rt = instance.runtime;
      const source = outboxSourceOf(rt.store, rt.loopState);
      expect(source.indexRow()).toBeNull();
      begin(rt, taskId);
      rt.loopState.patch({
        usage: { ...rt.loopState.get().usage, inputTokens: 7, modelCalls: 1 },
      });
      expect(source.indexRow()).toMatchObject({
        id: taskId,
        owner: OWNER,
        rootAgent: "writer",
        state: "TASK_STATE_SUBMITTED",
        inputTokens: 7,
        modelCalls: 1,
      });
      expect(source.finishedArtifacts()).toBeNull();
      rt.store.putArtifact({ artifactId: "answer", parts: [{ text: "done" }] });
      rt.store.update({ state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() }, {});
      expect(source.finishedArtifacts()?.artifacts.map((a) => a.artifactId)).toEqual(["answer"]);
    }, taskId);
  });

  it("writes the index row, and schedules a retry when D1 fails", async () => {
    const taskId = crypto.randomUUID();
    await inBegunTask(async (rt) => {
      const failing = {
        prepare() {
          throw new Error("D1_ERROR: unavailable");
        },
      } as unknown as D1Database;
      await new Outbox(failing, env.FILES, rt.scheduler, rt.outboxSource).syncIndex();
      expect(rt.scheduler.get("outbox:index")?.attempts).toBe(1);
      await new Outbox(env.DB, env.FILES, rt.scheduler, rt.outboxSource).retry("outbox:index");
      expect(rt.scheduler.get("outbox:index")).toBeNull();
    }, taskId);
    expect((await getTaskIndex(env.DB, taskId))?.owner).toBe(OWNER);
  });
});

describe("runtime status change", () => {
  it("writes the record, its event and the push queue in one transaction", async () => {
    await inBegunTask((rt, state) => {
      const lastSeq = rt.log.lastSeq;
      const append = rt.log.append.bind(rt.log);
      rt.log.append = () => {
        throw new Error("disk full");
      };
      expect(() => rt.setStatus("TASK_STATE_WORKING")).toThrow("disk full");
      rt.log.append = append;
      // Nothing of the change reached SQLite: the row is as it was, with no new event.
      const row = new TaskStore(state.storage.sql, WriteUnit.of(state.storage)).record;
      expect(row?.state).toBe("TASK_STATE_SUBMITTED");
      expect(row?.version).toBe(1);
      expect(new EventLog(state.storage.sql, WriteUnit.of(state.storage)).lastSeq).toBe(lastSeq);
    });
  });

  it("tells subscribers when the task settles and publishes harness events while it works", async () => {
    await inBegunTask((rt) => {
      const settled: TaskStateName[] = [];
      const events: string[] = [];
      rt.onStatusChange(({ state }) => {
        if (state !== "TASK_STATE_WORKING") settled.push(state);
        return undefined;
      });
      rt.onHarnessEvent((event) => {
        events.push(event.text);
        return undefined;
      });
      rt.setStatus("TASK_STATE_WORKING");
      rt.emitHarnessEvent({ kind: "plan", text: "step one", detail: "1" });
      rt.setStatus("TASK_STATE_INPUT_REQUIRED", { text: "Which file?" });
      // Not working: a harness event is neither published nor announced.
      rt.emitHarnessEvent({ kind: "plan", text: "ignored", detail: "2" });
      expect(settled).toEqual(["TASK_STATE_INPUT_REQUIRED"]);
      expect(events).toEqual(["step one"]);
      const kinds = rt.log.after(0).map(({ event }) => Object.keys(event)[0]);
      expect(kinds).toEqual(["task", "statusUpdate", "statusUpdate", "statusUpdate"]);
    });
  });
});

/** Every event of a task stream, read until the stream closes. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<SequencedEvent[]> {
  const events: SequencedEvent[] = [];
  for await (const entry of decodeLines<SequencedEvent>(stream)) events.push(entry);
  return events;
}

/** The status texts of a stream's status updates, in order. */
const statusTexts = (events: SequencedEvent[]) =>
  events.flatMap(({ event }) =>
    "statusUpdate" in event ? [event.statusUpdate.status.message?.parts[0]?.text ?? ""] : [],
  );

describe("a status change is one event", () => {
  it("reaches no stream, waiter or listener when its unit rolls back", async () => {
    await inBegunTask(async (rt, state) => {
      const first = rt.log.lastSeq;
      const stream = rt.subscribers.open([], false);
      const changes: TaskStateName[] = [];
      rt.onStatusChange(({ state }) => {
        changes.push(state);
        return undefined;
      });
      const lost = () =>
        rt.unit.run(() => {
          rt.setStatus("TASK_STATE_WORKING", { text: "lost" });
          rt.setStatus("TASK_STATE_CANCELED", { text: "lost end" });
          throw new Error("boom");
        });
      expect(lost).toThrow("boom");
      expect(changes).toEqual([]);
      expect(rt.store.record?.state).toBe("TASK_STATE_SUBMITTED");
      expect(rt.subscribers.size).toBe(1); // the rolled-back end closed no stream
      expect(new TaskStore(state.storage.sql, WriteUnit.of(state.storage)).record?.version).toBe(1);
      rt.setStatus("TASK_STATE_WORKING", { text: "kept" });
      rt.setStatus("TASK_STATE_CANCELED", { text: "stop" });
      const events = await readAll(stream);
      expect(statusTexts(events)).toEqual(["kept", "stop"]);
      // Numbered on from the last committed event: the rolled-back ones left no gap.
      expect(events.map((e) => e.seq)).toEqual([first + 1, first + 2]);
      expect(changes).toEqual(["TASK_STATE_WORKING", "TASK_STATE_CANCELED"]);
    });
  });

  it("is heard by streams and waiters only after its unit commits", async () => {
    await inBegunTask(async (rt) => {
      const first = rt.log.lastSeq;
      const stream = rt.subscribers.open([], false);
      const heard: number[] = [];
      rt.log.subscribe((entry) => heard.push(entry.seq));
      let woke = false;
      const waiting = rt.settled().then(() => {
        woke = true;
      });
      rt.unit.run(() => {
        rt.setStatus("TASK_STATE_WORKING");
        rt.emitAnswerChunk("done", false, true);
        rt.setStatus("TASK_STATE_COMPLETED", { text: "finished" });
        // Inside the unit nothing is out yet: no event heard, the stream open, no waiter woken.
        expect(heard).toEqual([]);
        expect(rt.subscribers.size).toBe(1);
      });
      expect(heard).toEqual([first + 1, first + 2, first + 3]);
      expect(rt.subscribers.size).toBe(0);
      await waiting;
      expect(woke).toBe(true);
      const events = await readAll(stream);
      expect(events.map((e) => Object.keys(e.event)[0])).toEqual([
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
      ]);
      expect(statusTexts(events).at(-1)).toBe("finished");
    });
  });
});

describe("alarm jobs", () => {
  /** Polls the object until `done` holds for what it shows. */
  const watch = (
    taskId: string,
    done: (seen: { hasRecord: boolean; scheduled: string[]; alarm: number | null }) => boolean,
  ) => {
    const stub = env.TASKS.get(env.TASKS.idFromName(taskId));
    const read = () =>
      runInDurableObject(stub, async (instance, state) => {
        const rt = (instance as unknown as TaskObject).runtime;
        return {
          hasRecord: rt.store.record !== null,
          scheduled: ["mystery", RETENTION_JOB].filter((id) => rt.scheduler.get(id) !== null),
          alarm: await state.storage.getAlarm(),
        };
      });
    return until(read, done);
  };

  it("drops a due entry that no job knows", async () => {
    const taskId = crypto.randomUUID();
    await inFreshObject(async (instance) => {
      begin(instance.runtime, taskId);
      await instance.runtime.scheduler.schedule("mystery", "mystery", Date.now());
    }, taskId);
    const seen = await watch(taskId, (s) => !s.scheduled.includes("mystery"));
    expect(seen).toEqual({ hasRecord: true, scheduled: [], alarm: null });
  });

  it("runs the retention job: the ended task erases itself", async () => {
    const taskId = crypto.randomUUID();
    await inBegunTask(async (rt) => {
      rt.setStatus("TASK_STATE_CANCELED", { text: "stop" });
      await rt.scheduler.schedule(RETENTION_JOB, "retention", Date.now());
    }, taskId);
    const seen = await watch(taskId, (s) => !s.hasRecord);
    expect(seen).toEqual({ hasRecord: false, scheduled: [], alarm: null });
  });
});
