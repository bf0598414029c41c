/**
 * Long work across sessions of one conversation under `wrangler dev`, with the official SDK client
 * and the scripted model (test/integration/long-work.test.ts plays the same script in workerd):
 *  1. two features recorded with their tests and a run_code test run (one passing, one failing)
 *     in the Worker Loader's sandbox; a researcher sub-agent writes to the scratchpad;
 *  2. the next session starts with what the harness checked (feature status, the passing test run
 *     again, the change history, the handoff's next step) and cannot write PROGRESS.json as a file;
 *  3. with the server stopped, agent_state.json's current content is overwritten in the local R2
 *     bucket by `wrangler r2 object put` (behind the harness's back); on a restarted server the
 *     session start reports it damaged with the checkpoint of its last good version, and the
 *     sub-agent's scratchpad from session 1 is still there;
 *  4. state_restore puts the offered version back.
 */
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { userKey } from "../../src/store/r2-keys.ts";
import * as script from "../helpers/long-work-script.ts";
import { asTask, stateOf, type Task, textRequest } from "./client.ts";
import { freshStateDir, type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";
import { collectOutput, ROOT, tempDir } from "./processes.ts";
import { addScenario } from "./scenarios.ts";

const ADMIN = "e2e-admin";
const BUCKET = "a2a-harness-files";

let harness: ScriptedHarness;
const persistDir = freshStateDir();

beforeAll(async () => {
  harness = await startScriptedHarness({ ADMIN_API_KEY: ADMIN }, persistDir);
});

afterAll(async () => {
  await harness?.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

const scenario = (turns: Turn[]) => addScenario(harness.fake.store, turns, "e2e-long");

const messagesOf = (id: string) =>
  harness.fake.store
    .requests(id)
    .map((r) => (r.body as { messages: script.RequestMessages }).messages);
/** Every tool result a scenario's requests carried. */
const allResults = (scenarioId: string) => script.toolResultTexts(messagesOf(scenarioId));
/** The environment note a scenario's first model request opened with. */
const noteOf = (scenarioId: string) => script.openingNote(messagesOf(scenarioId));

/** Sends one message (in `contextId`'s conversation when given) and returns the ended task. */
async function send(text: string, contextId?: string): Promise<Task> {
  const client = await new ClientFactory().createFromUrl(`${harness.server.url}/agents/assistant/`);
  return asTask(
    await client.sendMessage(textRequest(text, {}, contextId === undefined ? {} : { contextId })),
  );
}

/** The workspace files of `owner`'s assistant, as an admin exports them. */
async function exportedFiles(owner: string): Promise<Record<string, string>> {
  const response = await fetch(`${harness.server.url}/api/users/${owner}/data`, {
    headers: { Authorization: `Bearer ${ADMIN}` },
  });
  expect(response.status).toBe(200);
  const data = (await response.json()) as {
    agents: Record<string, { files: Record<string, string> }>;
  };
  return data.agents.assistant?.files ?? {};
}

/** Overwrites an object of the local R2 bucket with `wrangler r2 object put`, server stopped. */
async function overwriteObject(key: string, content: string): Promise<void> {
  const dir = tempDir("a2a-e2e-object-");
  const file = join(dir, "object");
  writeFileSync(file, content);
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };
  const wrangler = join(ROOT, "node_modules", ".bin", "wrangler");
  const args = ["r2", "object", "put", `${BUCKET}/${key}`, "--file", file, "--local"];
  const child = spawn(wrangler, [...args, "--persist-to", persistDir], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = collectOutput(child);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`wrangler r2 object put exited ${code}:\n${output.all()}`);
}

const sha256Hex = async (text: string) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toString(
    "hex",
  );

const DAMAGED = '{"iteration": 2, oops';

describe("long work under wrangler dev", () => {
  it("carries features, tests, changes, the handoff and the scratchpad across sessions and a restart", async () => {
    // Session 1: two features with tests, one run (one passing, one failing), a sub-agent's notes.
    const child = scenario(script.RESEARCHER_TURNS);
    const one = scenario(script.sessionOneTurns(child.marker));
    const first = await send(`build it ${one.marker}`);
    expect(stateOf(first)).toBe("TASK_STATE_COMPLETED");
    const contextId = first.contextId;
    const owner = await anonymousOwner(contextId);
    const runResult = allResults(one.id).find((r) => r.includes("run_code: exit"));
    expect(runResult).toContain(script.SESSION_ONE_RUN);
    expect(allResults(child.id).join("\n")).toContain("findings.md");

    // Session 2: the note shows what the harness checked; the state files cannot be written.
    const two = scenario(script.SESSION_TWO_TURNS);
    const second = await send(`go on ${two.marker}`, contextId);
    expect(stateOf(second)).toBe("TASK_STATE_COMPLETED");
    expect(second.contextId).toBe(contextId);
    script.expectSessionTwoNote(noteOf(two.id));
    expect(allResults(two.id).some((r) => r.includes(script.PROGRESS_REFUSED))).toBe(true);
    const files = await exportedFiles(owner);
    expect(JSON.parse(files["PROGRESS.json"] ?? "{}").remaining).toEqual([
      "Fix format so 1 + 1 formats",
    ]);
    expect(files["notes.md"]).toBe("format next");

    // Behind the harness's back, server stopped: agent_state.json's current content (written at
    // the end of session 2, held by no checkpoint) is overwritten with damaged bytes in R2.
    const state = files["agent_state.json"];
    expect(JSON.parse(state ?? "null")).toMatchObject({ iteration: 2 });
    await harness.server.stop();
    const key = userKey("assistant", owner, `blobs/${await sha256Hex(state ?? "")}`);
    await overwriteObject(key, DAMAGED);
    await harness.restart();
    expect((await exportedFiles(owner))["agent_state.json"]).toBe(DAMAGED);

    // Session 3: the damage is reported with the checkpoint of the last good version; the
    // sub-agent's scratchpad from session 1 is still there.
    const three = scenario(script.SESSION_THREE_TURNS);
    const third = await send(`three ${three.marker}`, contextId);
    expect(stateOf(third)).toBe("TASK_STATE_COMPLETED");
    const note3 = noteOf(three.id);
    expect(note3).toContain("agent_state.json is damaged (not JSON) and was not used.");
    const offered = /Its last good version is in checkpoint (cp-\d+) \(/.exec(note3)?.[1];
    expect(offered).toBeDefined();
    expect(note3).toContain(
      `put it back with state_restore (file agent_state.json, checkpoint ${offered})`,
    );
    expect(note3).not.toContain("## Where the work stands (agent_state.json)");
    expect(note3).toMatch(/## Regression run\nRe-ran 1 test file .*: no regressions\./);
    expect(JSON.stringify(third.history)).toContain("agent_state.json damaged");
    expect(allResults(three.id).join("\n")).toContain("CSV quoting: RFC 4180.");

    // Session 4: the offered checkpoint puts session 1's version back.
    const four = scenario(script.sessionFourTurns("agent_state.json", offered));
    expect(stateOf(await send(`restore ${four.marker}`, contextId))).toBe("TASK_STATE_COMPLETED");
    const restored = allResults(four.id);
    expect(restored).toContain(`Restored agent_state.json as it was at ${offered}.`);
    const read = restored
      .flatMap((r) => r.split("\n\n"))
      .find((part) => part.startsWith("agent_state.json: {"));
    expect(read).toContain('"iteration":1');
    expect(read).toContain(`"task":"${first.id}"`);
    expect(read).not.toContain(third.id);
  }, 600_000);
});
