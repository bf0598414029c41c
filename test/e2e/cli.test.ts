/**
 * The CLI (`npm run a2a -- ...`, cli/a2a.ts) against `wrangler dev`, output checked: card, send,
 * stream with the harness's events, get, tasks, cancel, chat answering a form, --json; and
 * against a plain v0.3 agent (a small fake on 127.0.0.1) to show it is not tied to this harness.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel } from "../fake-model/server.ts";
import { scenario as scriptScenario } from "./client.ts";
import { type DevServer, freePort, startDevServer } from "./dev-server.ts";

const root = join(import.meta.dirname, "..", "..");
let fake: Awaited<ReturnType<typeof startFakeModel>>;
let server: DevServer;
let legacy: Server;
let legacyUrl: string;

/**
 * Runs the CLI; returns its exit code and output. Asynchronous: the fake model and the v0.3 agent
 * run in this process and must keep answering while the CLI waits on them.
 */
function a2a(args: string[], input?: string): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(
    process.execPath,
    [join(root, "cli", "a2a.ts"), ...args, "--url", server.url],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", A2A_TOKEN: "" },
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  child.stdin.end(input ?? "");
  return new Promise((resolve) =>
    child.once("close", (code) => resolve({ code: code ?? -1, out, err })),
  );
}

const scenario = (id: string, turns: unknown[]) => scriptScenario(fake.url, id, turns);

/** A minimal A2A v0.3 agent: a v0.3 card and message/send answering with a completed Task. */
async function startLegacyAgent(): Promise<void> {
  legacy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && req.url?.startsWith("/.well-known/agent-card.json")) {
        res.end(
          JSON.stringify({
            name: "legacy-echo",
            description: "Echoes what it is told (an A2A v0.3 agent)",
            url: `${legacyUrl}/`,
            version: "0.1.0",
            protocolVersion: "0.3.0",
            preferredTransport: "JSONRPC",
            capabilities: { streaming: false },
            defaultInputModes: ["text/plain"],
            defaultOutputModes: ["text/plain"],
            skills: [{ id: "echo", name: "Echo", description: "Says it back", tags: [] }],
          }),
        );
        return;
      }
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id: number;
        method: string;
        params: { message: { parts: Array<{ text?: string }>; contextId?: string } };
      };
      if (request.method !== "message/send") {
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: request.id,
            error: { code: -32601, message: "no" },
          }),
        );
        return;
      }
      const text = request.params.message.parts.map((p) => p.text ?? "").join("");
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: request.id,
          result: {
            kind: "task",
            id: "legacy-task-1",
            contextId: request.params.message.contextId ?? "legacy-ctx",
            status: { state: "completed", timestamp: new Date().toISOString() },
            artifacts: [
              {
                artifactId: "echo",
                name: "echo",
                parts: [{ kind: "text", text: `echo: ${text}` }],
              },
            ],
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => legacy.listen(0, "127.0.0.1", resolve));
  legacyUrl = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  fake = await startFakeModel({ port: 0 });
  await startLegacyAgent();
  server = await startDevServer({
    port: await freePort(),
    vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "e2e-key" },
  });
});

afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => legacy?.close(() => resolve()));
  await fake?.close();
});

describe("npm run a2a", () => {
  it("card: the agent's name, interfaces, capabilities and skills", async () => {
    const { code, out } = await a2a(["card", "writer"]);
    expect(code).toBe(0);
    expect(out).toMatch(/^writer v1\.0\.0\n/);
    expect(out).toContain(`JSONRPC 1.0 ${server.url}/agents/writer/`);
    expect(out).toContain("capabilities: streaming, pushNotifications");
    expect(out).toContain("  - Reports and briefs:");
    const json = JSON.parse((await a2a(["card", "writer", "--json"])).out) as { name: string };
    expect(json.name).toBe("writer");
  });

  it("send: waits and prints the answer; --json prints the task", async () => {
    const marker = await scenario("cli-send", [{ text: "The answer is 42." }]);
    const { code, out } = await a2a(["send", "assistant", `What is it? ${marker}`]);
    expect(code).toBe(0);
    expect(out).toBe("The answer is 42.\n");
    const json = JSON.parse(
      (await a2a(["send", "assistant", "[[reply:json please]]", "--json"])).out,
    ) as {
      id: string;
      contextId: string;
      status: { state: string };
    };
    expect(json.status.state).toBe("TASK_STATE_COMPLETED");
    const got = await a2a(["get", "assistant", json.id]);
    expect(got.out).toContain(`task ${json.id}`);
    expect(got.out).toContain("json please");
    // An anonymous caller lists the conversation it names.
    const listed = await a2a(["tasks", "assistant", "--context", json.contextId, "--limit", "5"]);
    expect(listed.out).toContain(`${json.id}  completed`);
  });

  it("stream: one line per tool call, plan and hook intervention, then the streamed answer", async () => {
    const marker = await scenario("cli-stream", [
      {
        text: "",
        toolUses: [
          {
            name: "write_todos",
            input: { todos: [{ content: "Write the note", status: "in_progress" }] },
          },
        ],
      },
      { text: "", toolUses: [{ name: "write_file", input: { path: "cli.md", content: "hi" } }] },
      { text: "", toolUses: [{ name: "read_file", input: { path: "cli.md" } }] },
      { text: "Wrote and checked cli.md.", delayMs: 20, chunkSize: 4 },
    ]);
    const { code, out } = await a2a(["stream", "writer", `Write a note ${marker}`]);
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/^task [0-9a-f-]{36} · context [0-9a-f-]{32,36} · submitted$/);
    expect(lines).toContain("… working");
    expect(lines.some((l) => /^ {2}☰ plan .*\[writer\]$/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {2}→ tool_call Calling write_file on cli\.md/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {2}⎌ checkpoint /.test(l))).toBe(true);
    expect(out).toContain("Wrote and checked cli.md.\n✓ completed");
    const jsonLines = (await a2a(["stream", "writer", "[[reply:ok]]", "--json"])).out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(jsonLines[0] ?? {})).toEqual(["task"]);
    expect(JSON.stringify(jsonLines.at(-1))).toContain("TASK_STATE_COMPLETED");
  });

  it("send stops at input-required with exit code 3; chat answers a form inline", async () => {
    const marker = await scenario("cli-ask", [
      { text: "", toolUses: [{ name: "ask_user", input: { question: "Which city?" } }] },
      { text: "Booked Lisbon." },
    ]);
    const paused = await a2a(["send", "writer", `Book it ${marker}`]);
    expect(paused.code).toBe(3);
    expect(paused.out).toContain("? input-required: Which city?");
    const taskId = /--task ([0-9a-f-]{36})/.exec(paused.err)?.[1] as string;
    const answered = await a2a(["send", "writer", "--task", taskId, "Lisbon"]);
    expect(answered.code).toBe(0);
    expect(answered.out).toBe("Booked Lisbon.\n");

    const form = await scenario("cli-form", [
      {
        text: "",
        toolUses: [
          {
            name: "ask_user",
            input: {
              question: "Which size?",
              fields: { size: { type: "string", enum: ["s", "m", "l"] } },
              required: ["size"],
            },
          },
        ],
      },
      { text: "Ordered size m." },
      { text: "Anything else?" },
    ]);
    const chat = await a2a(["chat", "writer"], `Order a shirt ${form}\nm\nthanks\n`);
    expect(chat.code).toBe(0);
    expect(chat.out).toContain("? input-required: Which size?\n  size (s|m|l): m\n");
    expect(chat.out).toContain("Ordered size m.\n✓ completed");
    expect(chat.out).toContain("you> thanks\n");
  });

  it("cancel: a running task ends canceled", async () => {
    const marker = await scenario("cli-cancel", [
      { text: "x".repeat(400), delayMs: 50, chunkSize: 1 },
    ]);
    const child = spawn(
      process.execPath,
      [join(root, "cli", "a2a.ts"), "stream", "writer", `slow ${marker}`, "--url", server.url],
      {
        cwd: root,
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? -1)));
    const deadline = Date.now() + 15_000;
    while (!/^task ([0-9a-f-]{36})/.test(out) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const taskId = /^task ([0-9a-f-]{36})/.exec(out)?.[1] as string;
    const canceled = await a2a(["cancel", "writer", taskId]);
    expect(canceled.out).toBe(`task ${taskId}: TASK_STATE_CANCELED\n`);
    expect(await exited).toBe(4);
    expect(out).toContain("■ canceled");
  });

  it("shows a run_code call under wrangler dev (a real dynamic isolate)", async () => {
    const marker = await scenario("cli-run-code", [
      { text: "", toolUses: [{ name: "run_code", input: { code: "console.log(6 * 7)" } }] },
      { text: "It printed 42." },
    ]);
    const { code, out } = await a2a(["stream", "assistant", `Compute ${marker}`]);
    expect(code).toBe(0);
    expect(out).toContain("  → tool_call Calling run_code");
    expect(out).toContain("It printed 42.\n✓ completed");
    const requests = (await (
      await fetch(`${fake.url}/_scripted/requests?scenario=cli-run-code`)
    ).json()) as { requests: Array<{ body: { messages: Array<{ content: unknown }> } }> };
    const toolResult = JSON.stringify(requests.requests[1]?.body.messages.at(-1)?.content);
    expect(toolResult).toMatch(/run_code: exit 0 in \d+ ms/);
    expect(toolResult).toContain("--- output ---\\n42");
  });

  it("talks to a plain A2A v0.3 agent by URL", async () => {
    const card = await a2a(["card", legacyUrl]);
    expect(card.out).toContain("legacy-echo v0.1.0");
    expect(card.out).toContain(`url: ${legacyUrl}/ (JSONRPC 0.3.0)`);
    const sent = await a2a(["send", legacyUrl, "hello", "old", "friend"]);
    expect(sent.code).toBe(0);
    expect(sent.out).toBe("— echo —\necho: hello old friend\n");
  });
});
