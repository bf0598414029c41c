/**
 * Long work across sessions of one conversation, through the A2A endpoint with the scripted model:
 * features recorded with their tests and a run_code test run; the next session starts with what
 * the harness checked (feature status, the passing tests run again, the change history, the
 * handoff's next step) and cannot write a state file as a file; a state file corrupted behind the
 * harness's back is reported with the checkpoint that holds its last good version, which
 * state_restore puts back; the scratchpad a sub-agent wrote lasts for the conversation.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { sha256Hex } from "../../src/platform/hex.ts";
import { blobKey } from "../../src/workspace/files/blobs.ts";
import { workspaceKey } from "../../src/workspace/keys.ts";
import { rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import * as script from "../helpers/long-work-script.ts";
import { textToolTurn as tool } from "../helpers/turns.ts";

const send = async (text: string, contextId: string) =>
  (await rpc<{ task: WireTask }>("SendMessage", { message: userMessage(text, { contextId }) }))
    .result?.task as WireTask;

const requestsOf = async (scenarioId: string) =>
  (await modelRequests(scenarioId)).map((r) => r.body.messages);
/** Every tool result a scenario's requests carried. */
const allResults = async (scenarioId: string) =>
  script.toolResultTexts(await requestsOf(scenarioId));
/** The environment note a scenario's first model request opened with. */
const noteOf = async (scenarioId: string) => script.openingNote(await requestsOf(scenarioId));

describe("long work, session after session", () => {
  it("carries features, tests, changes, the handoff and the scratchpad across three sessions", async () => {
    const contextId = crypto.randomUUID();
    const owner = await anonymousOwner(contextId);

    // Session 1: two features with tests, one run (one passing, one failing), a sub-agent's notes.
    const child = await scenario(script.RESEARCHER_TURNS);
    const one = await scenario(script.sessionOneTurns(child.marker));
    expect((await send(`build it ${one.marker}`, contextId)).status.state).toBe(
      "TASK_STATE_COMPLETED",
    );
    const runResult = (await allResults(one.id)).find((r) => r.includes("run_code: exit"));
    expect(runResult).toContain(script.SESSION_ONE_RUN);

    // Session 2: the note shows what the harness checked; the state files cannot be written.
    const two = await scenario(script.SESSION_TWO_TURNS);
    const second = await send(`go on ${two.marker}`, contextId);
    expect(second.status.state).toBe("TASK_STATE_COMPLETED");
    script.expectSessionTwoNote(await noteOf(two.id));
    const results = await allResults(two.id);
    expect(results.some((r) => r.includes(script.PROGRESS_REFUSED))).toBe(true);

    // Behind the harness's back (past the state guard and the file operations): the manifest
    // points feature_status.json at damaged content.
    const workspace = env.WORKSPACES.get(
      env.WORKSPACES.idFromName(workspaceKey("assistant", owner)),
    );
    const damaged = new TextEncoder().encode('{"features": [oops');
    const hash = await sha256Hex(damaged);
    await env.FILES.put(blobKey({ agent: "assistant", owner }, hash), damaged);
    await runInDurableObject(workspace, (instance) => {
      const { manifest } = instance as unknown as {
        manifest: {
          put(path: string, hash: string, size: number, at: string, seq: number): void;
          nextSeq(): number;
        };
      };
      manifest.put(
        "feature_status.json",
        hash,
        damaged.byteLength,
        new Date().toISOString(),
        manifest.nextSeq(),
      );
    });

    // Session 3: the damage is reported with the checkpoint of the last good version; the
    // sub-agent's scratchpad from session 1 is still there.
    const three = await scenario(script.SESSION_THREE_TURNS);
    await send(`three ${three.marker}`, contextId);
    const note3 = await noteOf(three.id);
    expect(note3).toContain("feature_status.json is damaged (not JSON) and was not used.");
    const offered = /last good version is in checkpoint (cp-\d+)/.exec(note3)?.[1];
    expect(offered).toBeDefined();
    expect(note3).toContain(`state_restore (file feature_status.json, checkpoint ${offered})`);
    expect(note3).not.toContain("## Regression run");
    expect((await allResults(three.id)).join("\n")).toContain("CSV quoting: RFC 4180.");

    // The offered checkpoint puts the file back.
    const four = await scenario(script.sessionFourTurns("feature_status.json", offered));
    await send(`restore ${four.marker}`, contextId);
    const restored = await allResults(four.id);
    expect(restored).toContain(`Restored feature_status.json as it was at ${offered}.`);
    expect(restored.join("\n")).toContain('{"id":"parse","title":"Parse CSV"');
  }, 120_000);

  it("names a test that passed before and fails now as a regression", async () => {
    const contextId = crypto.randomUUID();
    const one = await scenario([
      tool("write_file", { path: "parse.ts", content: script.PARSE }),
      tool("write_file", { path: "parse.test.ts", content: script.PARSE_TEST }),
      tool("run_code", { mode: "test", tests: ["parse.test.ts"], feature: "parse" }),
      tool("read_file", { path: "parse.ts" }),
      tool("read_file", { path: "parse.test.ts" }),
      { text: "parse works" },
    ]);
    await send(`one ${one.marker}`, contextId);
    expect((await allResults(one.id)).join("\n")).toContain(
      "[feature_status.json: parse 1/1 passing]",
    );
    // The next session breaks it; the one after finds out before its first model call.
    const two = await scenario(
      script.laterSession(1, [
        tool("write_file", { path: "parse.ts", content: "export const parse = () => [];\n" }),
        tool("read_file", { path: "parse.ts" }),
        { text: "changed" },
      ]),
    );
    await send(`two ${two.marker}`, contextId);
    const three = await scenario(script.laterSession(2, [{ text: "looking" }]));
    const task = await send(`three ${three.marker}`, contextId);
    const note = await noteOf(three.id);
    expect(note).toContain("1 REGRESSION: parse passed before and fail now; fix it first.");
    expect(note).toContain("- parse [in_progress] 0/1 passing REGRESSION (parse.test.ts)");
    // The session start is on the task's stream as a harness event.
    const events = JSON.stringify(task.history);
    expect(events).toContain("Session start:");
    expect(events).toContain("REGRESSION in parse");
  }, 120_000);

  it("re-runs passing tests only after a change, cut at a small budget, so a slow one costs each later task nothing", async () => {
    const contextId = crypto.randomUUID();
    /** The session start's event of a task: what its regression run did. */
    const regressionOf = (task: WireTask) => {
      type Data = { kind?: string; detail?: { regression?: Record<string, unknown> | null } };
      const data = (task.history ?? [])
        .flatMap((m) => m.parts)
        .map((p) => p.data as Data | undefined)
        .find((d) => d?.kind === "session_start");
      return data?.detail?.regression ?? null;
    };
    // A test that passes at once, until delay.ts says otherwise.
    const one = await scenario([
      tool("write_file", { path: "delay.ts", content: "export const ms = 0;\n" }),
      tool("write_file", { path: "slow.test.ts", content: script.SLOW_TEST }),
      tool("run_code", { mode: "test", tests: ["slow.test.ts"], feature: "slow" }),
      tool("read_file", { path: "delay.ts" }),
      tool("read_file", { path: "slow.test.ts" }),
      { text: "planted" },
    ]);
    await send(`one ${one.marker}`, contextId);
    expect((await allResults(one.id)).join("\n")).toContain(
      "[feature_status.json: slow 1/1 passing]",
    );
    // Nothing changed since that run: the next task runs nothing before its first model call.
    const two = await scenario(script.laterSession(1, [{ text: "hello" }]));
    const second = await send(`two ${two.marker}`, contextId);
    expect(regressionOf(second)).toMatchObject({ files: 1, unchangedSince: expect.any(String) });
    expect(await noteOf(two.id)).toMatch(
      /## Regression run\nNot re-run: the 1 test file that passed last time ran at .+, and nothing in the workspace changed since\./,
    );
    // A change makes the test slow (9 s); the run after it is cut at its budget, nothing recorded.
    const three = await scenario(
      script.laterSession(2, [
        tool("write_file", { path: "delay.ts", content: "export const ms = 9000;\n" }),
        tool("read_file", { path: "delay.ts" }),
        { text: "slowed" },
      ]),
    );
    await send(`three ${three.marker}`, contextId);
    const four = await scenario(script.laterSession(3, [{ text: "hello" }]));
    const fourth = await send(`four ${four.marker}`, contextId);
    expect(regressionOf(fourth)).toMatchObject({ files: 1, cutAtMs: 2000 });
    const note = await noteOf(four.id);
    expect(note).toContain("was cut at its budget of 2000 ms");
    expect(note).not.toContain("REGRESSION");
    // And the one after runs nothing again: nothing changed since the cut run.
    const five = await scenario(script.laterSession(4, [{ text: "hello" }]));
    const fifth = await send(`five ${five.marker}`, contextId);
    expect(regressionOf(fifth)).toMatchObject({ unchangedSince: expect.any(String) });
  }, 120_000);

  it("ends a task whose workspace cannot be read with a clear status, before any model call", async () => {
    const contextId = crypto.randomUUID();
    const owner = await anonymousOwner(contextId);
    const first = await scenario([{ text: "first" }]);
    await send(`one ${first.marker}`, contextId);
    const workspace = env.WORKSPACES.get(
      env.WORKSPACES.idFromName(workspaceKey("assistant", owner)),
    );
    // Its snapshot call fails (here: the object no longer answers it).
    await runInDurableObject(workspace, (instance) => {
      (instance as unknown as { snapshot(): never }).snapshot = () => {
        throw new Error("storage unavailable");
      };
    });
    const blind = await scenario(script.laterSession(1, [{ text: "should not be asked" }]));
    const task = await send(`two ${blind.marker}`, contextId);
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    expect(task.status.message?.parts[0]?.text).toMatch(
      /^The workspace could not be read \(.+\), so the task stopped before its first model call/,
    );
    expect(await modelRequests(blind.id)).toHaveLength(0);
  }, 120_000);
});
