/**
 * Streaming an answer writes work linear in its length: each delta a step emits writes its own
 * text (its row of the answer, its chunk on the event log), never the answer so far, so a 270 KB
 * answer costs about 270 KB of writes rather than tens of megabytes; and no value the loop stores
 * grows with the answer (rows of at most 64 KB, far below SQLite's 2 MB value limit), which reads
 * back whole after a restart. Counted, not timed: the characters bound to the task object's SQL
 * statements per delta, in a real task object.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/config.ts";
import { ToolRegistry } from "../../../src/loop/calls/tool-registry.ts";
import { beginTask } from "../../../src/task/incoming.ts";
import { CHUNK_CHARS } from "../../../src/task/store/answer-text.ts";
import { taskSchema } from "../../../src/task/store/schema.ts";
import type { TaskObject } from "../../../src/task/task-object.ts";
import { stepDeps } from "../../../src/task/turn/step-deps.ts";
import { memoryAccess } from "../../../src/task/turn/turn-resources.ts";
import type { WorkspaceApi } from "../../../src/workspace/types.ts";
import { NO_REMOTE, NO_SUBAGENTS } from "../../helpers/no-subagents.ts";

/**
 * Counts the characters of every string bound to `sql`'s statements from now on, and the longest
 * one bound to a statement on the loop's tables (its row, the answer's rows).
 */
function countWrites(sql: SqlStorage): { chars: () => number; largestLoopValue: () => number } {
  const exec = sql.exec.bind(sql);
  let chars = 0;
  let largest = 0;
  Object.defineProperty(sql, "exec", {
    configurable: true,
    value: (query: string, ...bindings: SqlStorageValue[]) => {
      const loop = /\b(loop|answer_chunks)\b/.test(query);
      for (const value of bindings)
        if (typeof value === "string") {
          chars += value.length;
          if (loop) largest = Math.max(largest, value.length);
        }
      return exec(query, ...bindings);
    },
  });
  return { chars: () => chars, largestLoopValue: () => largest };
}

describe("a streamed answer's writes", () => {
  it("write each delta's own text, never the answer so far, in rows that stay small", async () => {
    const taskId = crypto.randomUUID();
    const stub = env.TASKS.get(env.TASKS.idFromName(taskId));
    await runInDurableObject(stub, (object, state) => {
      const instance = object as unknown as TaskObject;
      taskSchema(state.storage.sql).ensure();
      const rt = instance.runtime;
      beginTask(
        rt,
        {
          taskId,
          contextId: `ctx-${taskId}`,
          agent: "writer",
          owner: "anon-answer-writes",
          traceId: "c".repeat(32),
          message: { messageId: `m-${taskId}`, role: "ROLE_USER", parts: [{ text: "go" }] },
        },
        "writer",
        { name: "test-model", source: "test" },
      );
      const record = rt.store.record;
      if (!record) throw new Error("no task");
      const deps = stepDeps({
        env,
        config: loadConfig(env),
        task: rt,
        record,
        agent: rt.agent("writer"),
        signal: new AbortController().signal,
        subagents: NO_SUBAGENTS,
        tools: new ToolRegistry(),
        files: false,
        unavailable: null,
        // Streaming text reaches no workspace: an empty stand-in.
        workspace: {} as WorkspaceApi,
        ownWorkspace: true,
        memory: memoryAccess(env, "writer", record.owner, () => {}),
        scratchId: "answer-writes",
        remote: NO_REMOTE,
        delegation: { subagents: [] },
        environmentDue: false,
        live: [],
        system: [],
        environment: null,
      });
      const writes = countWrites(state.storage.sql);
      // 270 KB in the 512-character chunks the answer stream flushes.
      const delta = "w".repeat(512);
      let shown = "";
      const perDelta: number[] = [];
      for (let i = 0; i < 540; i++) {
        shown += delta;
        const before = writes.chars();
        deps.emitAnswer({ kind: "append", text: delta }, shown);
        perDelta.push(writes.chars() - before);
      }
      // Each delta: its row and its chunk event (the delta and a few hundred characters of ids).
      expect(Math.max(...perDelta)).toBeLessThan(2 * delta.length + 1_000);
      expect(writes.chars()).toBeLessThan(3 * shown.length);
      // A turn's text is stored in rows of at most 64 KB, however long it grows (here 3 MB, past
      // SQLite's 2 MB value limit), committed or not.
      const long = "r".repeat(3 * 1024 * 1024);
      rt.loopState.patch({ turnText: long });
      rt.loopState.patch({ answerText: long, turnText: "" });
      expect(writes.largestLoopValue()).toBeLessThanOrEqual(CHUNK_CHARS);
      // The answer reads back whole from its rows.
      rt.loopState.forget();
      expect(rt.loopState.get().answerText).toBe(long);
    });
  });

  it("commits a turn's text in the loop row it writes, no chunk rewritten; reads back across turns", async () => {
    const stub = env.TASKS.get(env.TASKS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, (object, state) => {
      const sql = state.storage.sql;
      taskSchema(sql).ensure();
      const loop = (object as unknown as TaskObject).runtime.loopState;
      const written: string[] = [];
      const exec = sql.exec.bind(sql);
      Object.defineProperty(sql, "exec", {
        configurable: true,
        value: (query: string, ...bindings: SqlStorageValue[]) => {
          if (/^\s*(INSERT|UPDATE|DELETE)/i.test(query))
            written.push(query.split(" (")[0] ?? query);
          return exec(query, ...bindings);
        },
      });
      loop.appendTurnText("One. ");
      loop.appendTurnText("Two. ");
      written.length = 0;
      loop.patch({ answerText: "One. Two. ", turnText: "", turn: 1 });
      expect(written).toEqual(["INSERT INTO loop"]); // the turn's end: the loop row, nothing more
      loop.appendTurnText("Three.");
      loop.forget(); // as a restarted object reads it
      expect(loop.get()).toMatchObject({ answerText: "One. Two. ", turnText: "Three." });
      loop.patch({ answerText: "One. Two. Three.", turnText: "", turn: 2 });
      loop.forget();
      expect(loop.get()).toMatchObject({ answerText: "One. Two. Three.", turnText: "" });
      // A rewrite (a turn dropped, the answer replaced) marks its rows itself, then turns go on.
      loop.patch({ answerText: "Replaced. ", turnText: "Partial" });
      loop.forget();
      expect(loop.get()).toMatchObject({ answerText: "Replaced. ", turnText: "Partial" });
      loop.appendTurnText(" more");
      loop.patch({ answerText: "Replaced. Partial more", turnText: "" });
      loop.appendTurnText("Next");
      loop.forget();
      expect(loop.get()).toMatchObject({ answerText: "Replaced. Partial more", turnText: "Next" });
    });
  });

  it("keeps the text an older version left in the loop row, in order, as it moves it to rows", async () => {
    const stub = env.TASKS.get(env.TASKS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, (object, state) => {
      const sql = state.storage.sql;
      taskSchema(sql).ensure();
      sql.exec(
        "INSERT INTO loop (id, turn, answer_text, turn_text, answer_started) VALUES (1, 2, 'Earlier. ', 'Now', 1)",
      );
      const loop = (object as unknown as TaskObject).runtime.loopState;
      loop.forget();
      expect(loop.get()).toMatchObject({ answerText: "Earlier. ", turnText: "Now", turn: 2 });
      loop.appendTurnText(" and more.");
      loop.patch({ answerText: "Earlier. Now and more.", turnText: "" });
      loop.forget();
      expect(loop.get()).toMatchObject({ answerText: "Earlier. Now and more.", turnText: "" });
      const row = sql.exec<{ a: string; t: string }>(
        "SELECT answer_text AS a, turn_text AS t FROM loop",
      );
      expect(row.one()).toEqual({ a: "", t: "" });
    });
  });
});
