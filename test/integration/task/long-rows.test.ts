/**
 * Rows that can hold a whole answer keep it in pieces (src/store/long-values.ts): the task
 * object's child reports, push bodies, pending calls and conversation rows, and the context
 * object's turns, each of 2.4 MB of UTF-8, read back whole; replaced or compacted away, they
 * leave no pieces behind; no stored value comes near Cloudflare's 2 MB limit. The task's kept
 * model requests too: the last few, whole, older ones' pieces dropped.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ContextStore, contextSchema } from "../../../src/conversations/context-store.ts";
import type { PendingCalls } from "../../../src/loop/calls/suspension.ts";
import { EMPTY_USAGE } from "../../../src/model/usage.ts";
import { PushStore } from "../../../src/push/push-store.ts";
import { PIECE_CHARS } from "../../../src/store/long-values.ts";
import { ChildrenStore } from "../../../src/task/store/children.ts";
import { ConversationStore } from "../../../src/task/store/conversation-store.ts";
import { PendingStore } from "../../../src/task/store/pending-store.ts";
import { taskSchema } from "../../../src/task/store/schema.ts";
import { MODEL_REQUESTS_KEPT, ModelRequestStore } from "../../../src/trace/model-requests.ts";

/** The bound every stored value stays under: half of Cloudflare's 2 MB. */
const BOUND = 1024 * 1024;

/** 2.4 MB of UTF-8 (1.5M UTF-16 units: letters, spaces and surrogate pairs). */
const LONG = "ab\u{1F600} ".repeat(300_000);

/** The longest value, in bytes, of any column of the tables named. */
function longest(sql: SqlStorage, columns: Record<string, string>): number {
  return Math.max(
    ...Object.entries(columns).map(
      ([table, column]) =>
        sql
          .exec<{ n: number | null }>(
            `SELECT MAX(LENGTH(CAST(${column} AS BLOB))) AS n FROM ${table}`,
          )
          .one().n ?? 0,
    ),
  );
}

const pieces = (sql: SqlStorage, prefix: string) =>
  sql
    .exec<{ n: number }>("SELECT COUNT(*) AS n FROM long_values WHERE key LIKE ?", `${prefix}%`)
    .one().n;

describe("long rows of the task object", () => {
  it("a child's report, a push body and pending calls of 2.4 MB read back whole, stored in pieces", async () => {
    const stub = env.TASKS.get(env.TASKS.newUniqueId());
    await runInDurableObject(stub, (_object, state) => {
      const sql = state.storage.sql;
      taskSchema(sql).ensure();

      const children = new ChildrenStore(sql);
      children.add("child-1", "helper", "local");
      const report = { state: "TASK_STATE_COMPLETED" as const, usage: EMPTY_USAGE };
      children.report("child-1", { ...report, text: LONG, version: 1 });
      children.report("child-1", { ...report, text: `${LONG}!`, version: 2 });
      expect(children.get("child-1")?.report?.text === `${LONG}!`).toBe(true);
      expect(children.all()[0]?.report?.version).toBe(2);

      const push = new PushStore(sql);
      const config = {
        id: "push-1",
        url: "https://example.com/hook",
        token: null,
        authScheme: null,
        authCredentials: null,
        protocol: "1.0" as const,
        createdAt: new Date(0).toISOString(),
      };
      push.put(config);
      push.enqueue("completed", [{ config, body: LONG, contentType: "application/json" }], 0);
      expect(push.heads()[0]?.body === LONG).toBe(true);

      const pending = new PendingStore(sql);
      const calls: PendingCalls = {
        calls: [{ id: "call-1", name: "task", input: {} }],
        next: 0,
        results: [{ type: "tool_result", tool_use_id: "call-0", content: LONG }],
        waiting: { kind: "child", childTaskId: "child-1", agent: "helper" },
        resolution: null,
        deferred: [],
      };
      pending.set(calls);
      pending.set({ ...calls, resolution: { kind: "child", state: "completed", text: LONG } });
      const read = new PendingStore(sql).get();
      expect(read?.results[0]?.content === LONG).toBe(true);
      expect(read?.resolution?.text === LONG).toBe(true);

      expect(
        longest(sql, {
          children: "report_json",
          push_deliveries: "body",
          pending_calls: "json",
          long_values: "text",
        }),
      ).toBeLessThan(BOUND);
      // Replacing a value leaves only its own pieces; removing the calls leaves none.
      const reportPieces = pieces(sql, "children:");
      children.report("child-1", { ...report, text: "short", version: 3 });
      expect(children.get("child-1")?.report?.text).toBe("short");
      expect([reportPieces > 0, pieces(sql, "children:")]).toEqual([true, 0]);
      pending.set(null);
      expect(pieces(sql, "pending_calls")).toBe(0);
    });
  });

  it("long conversation rows and turns read back whole; compaction drops their pieces", async () => {
    const said = { role: "assistant" as const, content: [{ type: "text" as const, text: LONG }] };
    const summary = { role: "user" as const, content: "summary" };
    await runInDurableObject(env.TASKS.get(env.TASKS.newUniqueId()), (_object, state) => {
      const sql = state.storage.sql;
      taskSchema(sql).ensure();
      const rows = new ConversationStore(sql);
      rows.append(said);
      rows.append(said);
      const read = new ConversationStore(sql).load();
      expect(read.length).toBe(2);
      expect(JSON.stringify(read[1]) === JSON.stringify(said)).toBe(true);
      expect(longest(sql, { conversation: "content_json", long_values: "text" })).toBeLessThan(
        BOUND,
      );
      rows.replacePrefix(2, summary);
      expect(pieces(sql, "conversation:1")).toBe(0);
      expect(pieces(sql, "conversation:2")).toBeGreaterThan(0);
    });
    await runInDurableObject(env.CONTEXTS.get(env.CONTEXTS.newUniqueId()), (_object, state) => {
      const sql = state.storage.sql;
      contextSchema(sql).ensure();
      const turns = new ContextStore(sql, true);
      turns.appendRelease("task-1", 2, [summary, said]);
      const read = new ContextStore(sql).turnsAfter(0).turns;
      expect(JSON.stringify(read[1]?.message) === JSON.stringify(said)).toBe(true);
      expect(longest(sql, { turns: "content_json", long_values: "text" })).toBeLessThan(BOUND);
      turns.summarize(2, summary);
      expect(pieces(sql, "turns:")).toBe(0);
    });
  });
});

describe("kept model requests", () => {
  it("keep the last MODEL_REQUESTS_KEPT bodies of 2.4 MB whole, in pieces, and drop older pieces", async () => {
    const stub = env.TASKS.get(env.TASKS.newUniqueId());
    await runInDurableObject(stub, (_object, state) => {
      const sql = state.storage.sql;
      taskSchema(sql).ensure();
      const requests = new ModelRequestStore(sql);
      const total = MODEL_REQUESTS_KEPT + 2;
      for (let turn = 0; turn < total; turn += 1) {
        requests.record({ kind: "turn", turn, attempt: 0 }, `${turn}${LONG}`, turn);
      }
      const kept = requests.all();
      expect(kept.map((r) => r.turn)).toEqual(
        Array.from({ length: MODEL_REQUESTS_KEPT }, (_, i) => total - MODEL_REQUESTS_KEPT + i),
      );
      expect(kept.every((r) => r.body === `${r.turn}${LONG}`)).toBe(true);
      expect(longest(sql, { model_requests: "body", long_values: "text" })).toBeLessThan(BOUND);
      const perBody = Math.ceil(`0${LONG}`.length / PIECE_CHARS);
      expect(pieces(sql, "model_request:")).toBe(MODEL_REQUESTS_KEPT * perBody);
    });
  });
});
