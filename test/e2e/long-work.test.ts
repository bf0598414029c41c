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
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { userKey } from "../../src/store/r2-keys.ts";
import { startFakeModel } from "../fake-model/server.ts";
import { textToolTurn as tool } from "../helpers/turns.ts";
import { asTask, stateOf, type Task, textRequest } from "./client.ts";
import { type DevServer, freePort, freshStateDir, startDevServer } from "./dev-server.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ADMIN = "e2e-admin";
const BUCKET = "a2a-harness-files";

let fake: Awaited<ReturnType<typeof startFakeModel>>;
let server: DevServer | undefined;
let port: number;
const persistDir = freshStateDir();

const vars = () => ({
  ANTHROPIC_BASE_URL: fake.url,
  ANTHROPIC_API_KEY: "e2e-key",
  ADMIN_API_KEY: ADMIN,
});

beforeAll(async () => {
  fake = await startFakeModel({ port: 0 });
  port = await freePort();
  server = await startDevServer({ port, persistDir, vars: vars() });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  rmSync(persistDir, { recursive: true, force: true });
});

function scenario(turns: Turn[]): { id: string; marker: string } {
  const id = `e2e-long-${crypto.randomUUID()}`;
  fake.store.addScenario({ id, turns });
  return { id, marker: `[[scenario:${id}]]` };
}

/**
 * A later session's turns: the scripted model picks a turn by the number of assistant messages
 * in the request, and each earlier task of the conversation left one.
 */
const laterSession = (sessions: number, turns: Turn[]): Turn[] => [
  ...Array.from({ length: sessions }, () => ({ text: "(an earlier session)" })),
  ...turns,
];

type Messages = Array<{ role: string; content: unknown }>;
const messagesOf = (id: string) =>
  fake.store.requests(id).map((r) => (r.body as { messages: Messages }).messages);

/** Every tool result a scenario's requests carried (the prompt is compacted as it grows). */
function allResults(scenarioId: string): string[] {
  const seen = new Set<string>();
  for (const messages of messagesOf(scenarioId))
    for (const m of messages)
      if (Array.isArray(m.content))
        for (const b of m.content as Array<{ type: string; content?: unknown }>)
          if (b.type === "tool_result")
            seen.add(
              typeof b.content === "string"
                ? b.content
                : ((b.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? "").join(""),
            );
  return [...seen];
}

/** The environment note a scenario's first model request opened with. */
function noteOf(scenarioId: string): string {
  const content = messagesOf(scenarioId)[0]?.at(-1)?.content as Array<{ text?: string }>;
  return content?.[0]?.text ?? "";
}

/** Sends one message (in `contextId`'s conversation when given) and returns the ended task. */
async function send(text: string, contextId?: string): Promise<Task> {
  if (!server) throw new Error("no server");
  const client = await new ClientFactory().createFromUrl(`${server.url}/agents/assistant/`);
  return asTask(
    await client.sendMessage(textRequest(text, {}, contextId === undefined ? {} : { contextId })),
  );
}

/** The workspace files of `owner`'s assistant, as an admin exports them. */
async function exportedFiles(owner: string): Promise<Record<string, string>> {
  const response = await fetch(`${server?.url}/api/users/${owner}/data`, {
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
  const dir = mkdtempSync(join(tmpdir(), "a2a-e2e-object-"));
  const file = join(dir, "object");
  writeFileSync(file, content);
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };
  const wrangler = join(root, "node_modules", ".bin", "wrangler");
  const args = ["r2", "object", "put", `${BUCKET}/${key}`, "--file", file, "--local"];
  const child = spawn(wrangler, [...args, "--persist-to", persistDir], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`wrangler r2 object put exited ${code}:\n${output}`);
}

const sha256Hex = async (text: string) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toString(
    "hex",
  );

const PARSE = 'export const parse = (s: string) => s.split(",");\n';
const PARSE_TEST =
  'import { parse } from "./parse.ts";\ntest("splits", () => { expect(parse("a,b")).toEqual(["a", "b"]); });\n';
const FORMAT_TEST = 'test("formats", () => { expect(1 + 1).toBe(3); });\n';
const DAMAGED = '{"iteration": 2, oops';

describe("long work under wrangler dev", () => {
  it("carries features, tests, changes, the handoff and the scratchpad across sessions and a restart", async () => {
    // Session 1: two features with tests, one run (one passing, one failing), a sub-agent's notes.
    const child = scenario([
      tool("scratch_write", { path: "findings.md", content: "CSV quoting: RFC 4180." }),
      { text: "Wrote findings.md." },
    ]);
    const one = scenario([
      tool("write_file", { path: "parse.ts", content: PARSE }),
      tool("write_file", { path: "parse.test.ts", content: PARSE_TEST }),
      tool("write_file", { path: "format.test.ts", content: FORMAT_TEST }),
      tool("feature_update", {
        features: [
          { id: "parse", title: "Parse CSV", status: "in_progress", tests: ["parse.test.ts"] },
          { id: "format", status: "in_progress", tests: ["format.test.ts"] },
        ],
      }),
      tool("run_code", { mode: "test", tests: ["parse.test.ts", "format.test.ts"] }),
      tool("task", {
        subagent_type: "researcher",
        description: "look up CSV quoting",
        prompt: `Find the CSV quoting rules. ${child.marker}`,
      }),
      tool("progress_update", {
        accomplished: ["parse works"],
        remaining: ["Fix format so 1 + 1 formats"],
        nextAgent: "writer",
        continueFrom: "format.test.ts:1",
        notes: ["format.test.ts fails on purpose"],
      }),
      tool("read_file", { path: "parse.ts" }),
      tool("read_file", { path: "parse.test.ts" }),
      tool("read_file", { path: "format.test.ts" }),
      { text: "Session one done." },
    ]);
    const first = await send(`build it ${one.marker}`);
    expect(stateOf(first)).toBe("TASK_STATE_COMPLETED");
    const contextId = first.contextId;
    const owner = await anonymousOwner(contextId);
    const runResult = allResults(one.id).find((r) => r.includes("run_code: exit"));
    expect(runResult).toContain("[feature_status.json: parse 1/1 passing; format 0/1 passing]");
    expect(allResults(child.id).join("\n")).toContain("findings.md");

    // Session 2: the note shows what the harness checked; the state files cannot be written.
    const two = scenario(
      laterSession(1, [
        tool("write_file", { path: "PROGRESS.json", content: '{"remaining":["INJECTED"]}' }),
        tool("write_file", { path: "notes.md", content: "format next" }),
        tool("read_file", { path: "notes.md" }),
        { text: "Session two done." },
      ]),
    );
    const second = await send(`go on ${two.marker}`, contextId);
    expect(stateOf(second)).toBe("TASK_STATE_COMPLETED");
    expect(second.contextId).toBe(contextId);
    const note2 = noteOf(two.id);
    expect(note2).toContain("## Features (feature_status.json)");
    expect(note2).toContain("0 of 2 completed, 2 in progress");
    expect(note2).toContain("- parse [in_progress] 1/1 passing (parse.test.ts)");
    expect(note2).toContain("- format [in_progress] 0/1 passing (format.test.ts)");
    expect(note2).toMatch(
      /## Regression run\nRe-ran 1 test file that passed last time \(\d+ ms\): no regressions\./,
    );
    expect(note2).toContain("- parse: 1/1 passing");
    expect(note2).toMatch(
      /## Recent changes \(newest first\)\n- \S+ \S+ create format\.test\.ts · assistant · task /,
    );
    expect(note2).toContain("create parse.ts · assistant");
    expect(note2).toContain("next agent writer · continue from format.test.ts:1");
    expect(note2).toContain("- Fix format so 1 + 1 formats");
    expect(note2).toContain("## Next agent\nwriter");
    expect(note2).toContain(
      "## Scratchpad of this conversation (1 file; scratch_read)\n- findings.md",
    );
    expect(
      allResults(two.id).some((r) => r.includes("PROGRESS.json is kept by progress_update")),
    ).toBe(true);
    const files = await exportedFiles(owner);
    expect(JSON.parse(files["PROGRESS.json"] ?? "{}").remaining).toEqual([
      "Fix format so 1 + 1 formats",
    ]);
    expect(files["notes.md"]).toBe("format next");

    // Behind the harness's back, server stopped: agent_state.json's current content (written at
    // the end of session 2, held by no checkpoint) is overwritten with damaged bytes in R2.
    const state = files["agent_state.json"];
    expect(JSON.parse(state ?? "null")).toMatchObject({ iteration: 2 });
    await server?.stop();
    server = undefined;
    const key = userKey("assistant", owner, `blobs/${await sha256Hex(state ?? "")}`);
    await overwriteObject(key, DAMAGED);
    server = await startDevServer({ port, persistDir, vars: vars() });
    expect((await exportedFiles(owner))["agent_state.json"]).toBe(DAMAGED);

    // Session 3: the damage is reported with the checkpoint of the last good version; the
    // sub-agent's scratchpad from session 1 is still there.
    const three = scenario(
      laterSession(2, [tool("scratch_read", { path: "findings.md" }), { text: "ok" }]),
    );
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
    const four = scenario(
      laterSession(3, [
        tool("state_restore", { file: "agent_state.json", checkpoint: offered }),
        tool("progress_read", {}),
        { text: "restored" },
      ]),
    );
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
