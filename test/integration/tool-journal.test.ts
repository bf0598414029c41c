/**
 * The journal of a turn's tool calls across a restart: each call is written as it starts and as
 * it ends, so a turn a crash cut off resumes at its first unfinished call. A finished call keeps
 * its real result and never runs again; one that started and never returned runs again if its
 * tool only reads, and is otherwise reported to the model as one that may or may not have taken
 * effect.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cutOff } from "../../src/loop/tool-calls.ts";
import { INTERRUPTED_TOOL_RESULT } from "../../src/loop/turn/repair.ts";
import type { TaskObject } from "../../src/task/task-object.ts";
import { answerText } from "../helpers/a2a.ts";
import { EXPECTED_CRASH } from "../helpers/crash.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { startTask, untilState } from "../helpers/tasks.ts";
import { until } from "../helpers/until.ts";

const stubOf = (taskId: string) => env.TASKS.get(env.TASKS.idFromName(taskId));

function inObject<R>(taskId: string, fn: (instance: TaskObject) => R | Promise<R>): Promise<R> {
  return runInDurableObject(stubOf(taskId), (instance) => fn(instance as unknown as TaskObject));
}

/** Simulates a crash of the task's object (its in-memory state and in-flight work are lost). */
async function crash(taskId: string): Promise<void> {
  await runInDurableObject(stubOf(taskId), (_instance, state) => {
    state.abort(EXPECTED_CRASH);
  }).catch(() => {});
}

/** The tool results (by call id) of the model request that followed the tool turn. */
async function resultsSeen(
  scenarioId: string,
): Promise<Record<string, { content: string; error: boolean }>> {
  const request = (await modelRequests(scenarioId)).find((r) => r.turnIndex === 1);
  const out: Record<string, { content: string; error: boolean }> = {};
  for (const m of request?.body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Array<Record<string, unknown>>)
      if (b.type === "tool_result")
        out[String(b.tool_use_id)] = { content: String(b.content), error: b.is_error === true };
  }
  return out;
}

const write = (id: string, path: string) => ({
  id,
  name: "write_file",
  input: { path, content: `${path} written once` },
});

describe("the tool call journal", () => {
  it("a crash during a slow call keeps the real results of the calls before it, run once", async () => {
    const slow = {
      id: "toolu_slow",
      name: "run_code",
      input: {
        code: "export default async () => { await new Promise((r) => setTimeout(r, 8000)); return 1; };",
        language: "javascript",
      },
    };
    const s = await scenario([
      {
        toolUses: [
          write("toolu_w1", "a.md"),
          write("toolu_w2", "b.md"),
          write("toolu_w3", "c.md"),
          slow,
        ],
      },
      { text: "Checked and done." },
      { text: "Verified." },
    ]);
    const task = await startTask(`three writes then a slow call ${s.marker}`);
    // The three writes returned and the slow call started: the crash lands inside it.
    await until(
      () => inObject(task.id, (o) => o.runtime.journal.all()),
      (rows) => rows.length === 4,
      30_000,
    );
    await crash(task.id);
    const done = await untilState(task.id, "TASK_STATE_COMPLETED", 60_000);
    expect(answerText(done)).toContain("Checked and done.");
    const seen = await resultsSeen(s.id);
    for (const [id, path] of [
      ["toolu_w1", "a.md"],
      ["toolu_w2", "b.md"],
      ["toolu_w3", "c.md"],
    ] as const) {
      expect(seen[id]?.error).toBe(false);
      expect(seen[id]?.content).toContain(path);
      expect(seen[id]?.content).not.toBe(INTERRUPTED_TOOL_RESULT);
    }
    expect(seen.toolu_slow).toEqual({ content: cutOff("run_code").content, error: true });
    const rows = await inObject(task.id, (o) => o.runtime.journal.all());
    expect(rows.map((r) => [r.callId, r.runs, r.finished])).toEqual([
      ["toolu_w1", 1, true],
      ["toolu_w2", 1, true],
      ["toolu_w3", 1, true],
      ["toolu_slow", 1, true],
    ]);
    // Each write ran once: one tool_call event each on the task's stream.
    const calls = await inObject(task.id, (o) =>
      o.runtime.log
        .after(0)
        .map(({ event }) => JSON.stringify(event))
        .filter((json) => json.includes('"tool_call"') && /toolu_w\d/.test(json)),
    );
    expect(calls).toHaveLength(3);
  }, 90_000);

  it("resumes at the first unfinished call: journaled results reused, a read re-run", async () => {
    const again = await scenario([{ text: "unused" }, { text: "Resumed." }]);
    const taskId = crypto.randomUUID();
    await inObject(taskId, async (o) => {
      await o.create(
        {
          taskId,
          contextId: crypto.randomUUID(),
          agent: "assistant",
          owner: "anon-journal",
          traceId: `${"0".repeat(31)}3`,
          message: { messageId: "m", role: "ROLE_USER", parts: [{ text: `j ${again.marker}` }] },
        },
        { stream: false },
      );
      // As if the object died during the turn's fifth call: two finished, a write and a read
      // started and never returned, one never started.
      const rt = o.runtime;
      rt.conversation.append({
        role: "assistant",
        content: [
          { type: "tool_use", ...write("toolu_a", "a.md") },
          { type: "tool_use", ...write("toolu_b", "b.md") },
          { type: "tool_use", ...write("toolu_c", "c.md") },
          { type: "tool_use", id: "toolu_r", name: "read_file", input: { path: "a.md" } },
          { type: "tool_use", ...write("toolu_d", "d.md") },
        ],
      });
      for (const id of ["toolu_a", "toolu_b"]) {
        rt.journal.started({ id, name: "write_file", input: {} }, 0);
        rt.journal.finished(id, {
          type: "tool_result",
          tool_use_id: id,
          content: `journaled result of ${id}`,
        });
      }
      rt.journal.started({ id: "toolu_c", name: "write_file", input: {} }, 0);
      rt.journal.started({ id: "toolu_r", name: "read_file", input: {} }, 0);
    });
    await untilState(taskId, "TASK_STATE_COMPLETED");
    const seen = await resultsSeen(again.id);
    expect(seen.toolu_a).toEqual({ content: "journaled result of toolu_a", error: false });
    expect(seen.toolu_b).toEqual({ content: "journaled result of toolu_b", error: false });
    expect(seen.toolu_c).toEqual({ content: cutOff("write_file").content, error: true });
    // The read ran again (a.md was never written: its write finished before the restart only in
    // the journal this test made), and the write that never started ran.
    expect(seen.toolu_r?.content).not.toBe(cutOff("read_file").content);
    expect(seen.toolu_d).toMatchObject({ error: false });
    expect(seen.toolu_d?.content).toContain("d.md");
    const rows = await inObject(taskId, (o) => o.runtime.journal.all());
    expect(Object.fromEntries(rows.map((r) => [r.callId, r.runs]))).toEqual({
      toolu_a: 1,
      toolu_b: 1,
      toolu_c: 1,
      toolu_r: 2,
      toolu_d: 1,
    });
  });
});
