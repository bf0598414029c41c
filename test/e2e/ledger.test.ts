/**
 * The storage meter and the critical-path ledger (`STORAGE_METER=true`) under `wrangler dev`,
 * where the Worker and every object share one isolate: the D1 statements and R2 operations of a
 * task, which round trips the ledger puts before a blocking task's response and a stream's
 * first event, and which objects a task calls (a conversation's object only once it has a second
 * task; a workspace only for an agent with file tools). Counts and order only, never times.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageCallBody } from "./client.ts";
import { type DevServer, type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";
import { count, type Entry, objectCalls, storageLedger } from "./storage-ledger.ts";

let harness: ScriptedHarness;
let server: DevServer;
let ledgerOf: ReturnType<typeof storageLedger>["ledgerOf"];

beforeAll(async () => {
  // No credential throttle: the meter's own polling with the admin key would otherwise add its
  // USERS.attempt calls to a task's counts whenever the isolate's 5 s token cache has expired.
  harness = await startScriptedHarness({
    STORAGE_METER: "true",
    ADMIN_API_KEY: "e2e-admin",
    AUTH_FAILURES_PER_MINUTE: "0",
  });
  ({ server } = harness);
  ({ ledgerOf } = storageLedger(server.url, "e2e-admin"));
});

afterAll(async () => {
  await harness?.stop();
});

/** One JSON-RPC v1.0 send to the default agent (or `agent`); the body read to its end. */
const send = (method: string, accept = "application/json", agent?: string) =>
  fetch(`${server.url}/${agent ? `agents/${agent}/` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0", Accept: accept },
    body: messageCallBody(method, "[[reply:ok]]"),
  }).then((r) => r.text());

/** The entries that ended before the mark `name` (exactly one such mark). */
function endedBefore(entries: Entry[], name: string): Entry[] {
  const marks = entries.filter((e) => e.kind === "mark" && e.name === name);
  expect(marks).toHaveLength(1);
  const at = marks[0]?.at ?? 0;
  return entries.filter((e) => e.kind !== "mark" && e.at + e.ms <= at);
}

describe("storage meter and critical-path ledger under wrangler dev", () => {
  it("counts a blocking task's D1 statements and R2 operations, each once in the ledger", async () => {
    const { metered, body } = await ledgerOf(() => send("SendMessage"));
    expect(body).toContain("TASK_STATE_COMPLETED");
    expect(metered.enabled).toBe(true);
    // The index row at WORKING and at COMPLETED; the answer's copy and HANDOFF.md's blob.
    expect(metered.d1.writes).toBeGreaterThanOrEqual(2);
    expect(metered.r2ClassA).toBeGreaterThanOrEqual(2);
    const { entries, dropped } = metered.ledger;
    expect(dropped).toBe(0);
    // Every statement and operation the meter counted is one timed round trip in the ledger.
    expect(metered.d1.batches).toBe(0);
    expect(count(entries, "d1")).toBe(metered.d1.statements);
    const r2 = Object.values(metered.r2).reduce((a, b) => a + b, 0);
    expect(count(entries, "r2")).toBe(r2);
  });

  it("puts the task (one call) and its model call before a blocking response, no storage read before the model", async () => {
    const { metered } = await ledgerOf(() => send("SendMessage"));
    const { entries } = metered.ledger;
    const early = endedBefore(entries, "response SendMessage");
    const late = entries.filter((e) => e.kind !== "mark" && !early.includes(e));
    // The Worker made the task and waited for it in one call, before the response.
    expect(count(early, "do", "TASKS.create")).toBe(1);
    expect(count(entries, "do", "TASKS.waitSettled")).toBe(0);
    expect(count(late, "do", "TASKS.")).toBe(0);
    // One model call, started before the response; the task object ran SQL before it.
    const model = entries.filter((e) => e.kind === "mark" && e.name === "model");
    expect(model).toHaveLength(1);
    const response = entries.find((e) => e.name === "response SendMessage");
    expect(model[0]?.at).toBeLessThanOrEqual(response?.at ?? -1);
    // Nothing the prompt needs is read from D1 or R2 first (an anonymous conversation's new
    // owner has no memory or files; the budget comes with the request; the isolate has the shared
    // memory since the test before).
    const modelAt = model[0]?.at ?? -1;
    const readsFirst = entries.filter(
      (e) =>
        e.at + e.ms <= modelAt &&
        ((e.kind === "r2" && e.name.startsWith("get ")) ||
          (e.kind === "d1" && e.name.startsWith("SELECT"))),
    );
    expect(readsFirst).toEqual([]);
    expect(count(early, "sql", "task")).toBeGreaterThan(0);
    // Two index writes (WORKING, COMPLETED) and one copy of the answer, whichever side they end.
    expect(count(entries, "d1", "INSERT INTO tasks")).toBe(2);
    expect(count(entries, "r2", "put tasks/")).toBe(1);
  });

  it("marks a stream's first event, with the task's creation before it", async () => {
    const { metered, body } = await ledgerOf(() =>
      send("SendStreamingMessage", "text/event-stream"),
    );
    expect(body).toContain("TASK_STATE_COMPLETED");
    const { entries } = metered.ledger;
    const early = endedBefore(entries, "first-event");
    expect(count(early, "do", "TASKS.create")).toBe(1);
    expect(count(entries, "mark", "response SendStreamingMessage")).toBe(1);
    expect(count(entries, "mark", "model")).toBe(1);
    // The isolate's first SSE stream: its slot taken (with the message's admission and the
    // isolate's slices, one call to the user object before the task's) and given back.
    expect(count(early, "do", "USERS.lease")).toBe(1);
    expect(count(early, "do", "USERS.")).toBe(1);
    expect(count(entries, "do", "USERS.closeStream")).toBe(1);
  });

  it("opens no conversation object for a conversation of one task, and no workspace object for an agent without file tools", async () => {
    const put = await fetch(`${server.url}/api/admin/agents/chat-only/identity`, {
      method: "PUT",
      headers: { Authorization: "Bearer e2e-admin" },
      body: "---\nname: chat-only\ndescription: Talks; reads and writes no file.\ntools:\n  allow: [web_fetch, write_todos]\n---\nYou chat.\n",
    });
    expect(put.status).toBe(200);
    // The caller's user object and the isolate's copies are made once, before the counts.
    await send("SendMessage");
    const calls = objectCalls;
    const statements = (entries: Entry[], object?: string) =>
      entries.filter((e) => e.kind === "sql" && (object === undefined || e.name === object)).length;

    // A new conversation's blocking one-turn task: the task, the settlement, the end note.
    const withFiles = (await ledgerOf(() => send("SendMessage"))).metered.ledger.entries;
    expect(calls(withFiles)).toEqual(["TASKS.create", "USERS.settle", "WORKSPACES.endNote"]);
    expect(calls(endedBefore(withFiles, "response SendMessage"))).toEqual(["TASKS.create"]);
    expect(statements(withFiles, "context")).toBe(0);
    // 30 (the model call's row in `model_calls` among them), and: the request kept for the prompt
    // view (its seq read, its row), the settlement's idempotency answer (looked up, remembered),
    // the end note's (looked up, remembered, the first prune of a new object) and the task's
    // record for it (PROGRESS.json at its start read and dropped, its changes read).
    expect(statements(withFiles)).toBeLessThanOrEqual(40);

    // An agent whose tools reach no file: no workspace object either.
    const { metered, body } = await ledgerOf(() =>
      send("SendMessage", "application/json", "chat-only"),
    );
    expect(body).toContain("TASK_STATE_COMPLETED");
    const noFiles = metered.ledger.entries;
    expect(calls(noFiles)).toEqual(["TASKS.create", "USERS.settle"]);
    expect(statements(noFiles, "workspace")).toBe(0);
    expect(statements(noFiles, "context")).toBe(0);
    // 21, the answer's own rows (its text appended as a chunk, then committed with the turn), the
    // request kept for the prompt view (seq, row) and the settlement's idempotency answer.
    expect(statements(noFiles)).toBeLessThanOrEqual(27);
  });

  it("makes the conversation object at a second task's join, which asks the first for its turns", async () => {
    const first = JSON.parse(await send("SendMessage")) as {
      result: { task: { contextId: string } };
    };
    const contextId = first.result.task.contextId;
    const { metered } = await ledgerOf(() =>
      fetch(`${server.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "SendMessage",
          params: {
            message: {
              messageId: crypto.randomUUID(),
              contextId,
              role: "ROLE_USER",
              parts: [{ text: "[[reply:again]]" }],
            },
          },
        }),
      }).then((r) => r.text()),
    );
    const { entries } = metered.ledger;
    expect(count(entries, "do", "CONTEXTS.join")).toBe(1);
    expect(count(entries, "do", "TASKS.handOver")).toBe(1);
    expect(count(entries, "do", "CONTEXTS.release")).toBe(1);
  });
});
