/**
 * A long answer fits Cloudflare's limits: 40 turns of 64 KB each (2.6 MB, past SQLite's 2 MB
 * value limit) complete, and no value the task object's SQLite or its conversation (context)
 * object's holds comes near the limit (each table's longest value is measured), while the answer
 * reads back whole and once from every read: GetTask's artifact, the stream (its answer chunks,
 * and its echo for clients that show only status messages), a resubscription's replay,
 * ListTasks with history, and the conversation's turns the next task in it is handed.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ContextStore } from "../../../src/conversations/context-store.ts";
import { contextKey } from "../../../src/conversations/join.ts";
import { isAnswerEcho } from "../../../src/protocol/answer-echo.ts";
import { answerText, postRpc, rpc, userMessage, type WireTask } from "../../helpers/a2a.ts";
import { scenario } from "../../helpers/fake-model.ts";
import { applyChunks, collectSse, type StreamResult } from "../../helpers/sse.ts";
import { getTask } from "../../helpers/tasks.ts";
import { toolTurn } from "../../helpers/turns.ts";

/** The bound every stored value stays under: half of Cloudflare's 2 MB. */
const BOUND = 1024 * 1024;
const TURNS = 40;

/** 64 KB of a turn's text, numbered, with astral characters (surrogate pairs) throughout. */
const turnText = (i: number) => `[turn ${i}] ${"ab\u{1F600} ".repeat(13_100)}end`;

/** Asserts that `actual` is `expected` (without printing megabytes when it is not). */
function expectWhole(actual: string | undefined, expected: string): void {
  expect(actual?.length).toBe(expected.length);
  expect(actual === expected).toBe(true);
}

/** The longest value of every column of every table of an object's SQLite, by table. */
async function longestValues(stub: DurableObjectStub): Promise<Record<string, number>> {
  return runInDurableObject(stub, (_object, state) => {
    const sql = state.storage.sql;
    const longest: Record<string, number> = {};
    const tables = sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
      )
      .toArray();
    for (const { name } of tables) {
      const columns = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${name}')`);
      const lengths = [...columns].map(
        (c) => `COALESCE(MAX(LENGTH(CAST("${c.name}" AS BLOB))), 0)`,
      );
      longest[name] = sql
        .exec<{ n: number }>(`SELECT MAX(${lengths.join(", ")}, 0) AS n FROM "${name}"`)
        .one().n;
    }
    return longest;
  });
}

/** The text blocks of a model request's message content, joined. */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as Array<{ text?: string }>).map((b) => b.text ?? "").join("");

/** A status message as the test reads it. */
type StatusMessage = { parts: Array<{ text?: string }>; extensions?: string[] };

/** The texts of a stream's answer-echo status messages, joined. */
const echoOf = (results: readonly StreamResult[]) =>
  results
    .map((r) => (r.statusUpdate?.status as { message?: StatusMessage } | undefined)?.message)
    .filter((m) => isAnswerEcho(m))
    .flatMap((m) => m?.parts.map((p) => p.text ?? "") ?? [])
    .join("");

describe("a long answer", () => {
  it("completes 40 turns of 64 KB with no stored value near 2 MB, and reads back whole", async () => {
    const texts = Array.from({ length: TURNS }, (_, i) => turnText(i + 1));
    const answer = texts.join("\n\n");
    const s = await scenario(
      texts.map((text, i) =>
        i < TURNS - 1
          ? { ...toolTurn("no_such_tool", {}, text), chunkSize: 16_384 }
          : { text, chunkSize: 16_384 },
      ),
    );
    const contextId = crypto.randomUUID();
    const stream = await postRpc("/", "SendStreamingMessage", {
      message: userMessage(`write at length ${s.marker}`, { contextId }),
    });
    const results = (await collectSse(stream)).map((e) => e.body.result as StreamResult);
    const final = results.at(-1)?.statusUpdate as { taskId: string; status: { state: string } };
    expect(final.status.state).toBe("TASK_STATE_COMPLETED");
    const taskId = final.taskId;

    // Nothing stored comes near the limit, in the task object or in its conversation's.
    const taskStub = env.TASKS.get(env.TASKS.idFromName(taskId));
    const longest = await longestValues(taskStub);
    expect(Object.entries(longest).filter(([, n]) => n >= BOUND)).toEqual([]);
    const where = await runInDurableObject(taskStub, (_object, state) =>
      state.storage.sql
        .exec<{ owner: string; agent: string }>("SELECT owner, agent FROM task")
        .one(),
    );
    const context = env.CONTEXTS.get(
      env.CONTEXTS.idFromName(contextKey(where.owner, where.agent, contextId)),
    );
    const turns = await longestValues(context);
    expect(turns.turns).toBeGreaterThan(0);
    expect(Object.entries(turns).filter(([, n]) => n >= BOUND)).toEqual([]);

    // The stream: its answer chunks make the answer; its echo repeats it once.
    expectWhole(applyChunks(results).text, answer);
    expectWhole(echoOf(results).trimEnd(), answer);
    // GetTask: the artifact, and the history's answer message.
    const task = await getTask(taskId);
    expectWhole(answerText(task), answer);
    // The history holds the answer once, as one agent message.
    const said = (task.history ?? []).map((m) => m.parts.map((p) => p.text ?? "").join(""));
    expect(said.filter((text) => text === answer).length).toBe(1);
    // A resubscription replays the same events.
    const replay = await collectSse(
      await postRpc("/", "SubscribeToTask", { id: taskId }, { "Last-Event-ID": "0" }),
    );
    expectWhole(applyChunks(replay.map((e) => e.body.result as StreamResult)).text, answer);
    // ListTasks with history and artifacts.
    const listed = await rpc<{ tasks: WireTask[] }>("ListTasks", {
      contextId,
      includeArtifacts: true,
    });
    const found = listed.result?.tasks.find((t) => t.id === taskId);
    expectWhole(found && answerText(found), answer);
    // The conversation's turns (what its next task is handed) hold the answer whole.
    const handed = await runInDurableObject(context, (_object, state) =>
      new ContextStore(state.storage.sql).turnsAfter(0).turns.map((t) => t.message),
    );
    const turnTexts = handed.filter((m) => m.role === "assistant").map((m) => textOf(m.content));
    expectWhole(turnTexts.join("\n\n"), answer);
  }, 180_000);
});
