/**
 * The CLI (`npm run a2a -- ...`, cli/a2a.ts) against `wrangler dev`, output checked: card, send,
 * stream with the harness's events, get, tasks with previews, cancel, a declined task (exit 5),
 * chat answering a form and resuming a stream cut by a proxy, --json, prompt (what the model saw);
 * each error message (server
 * down, unknown agent or task, refused token...); and against a plain v0.3 agent (a small fake on
 * 127.0.0.1) to show it is not tied to this harness.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedAgents } from "./agent-set.ts";
import { runCli, startCli, startLegacyAgent } from "./cli-run.ts";
import { scenario as scriptScenario } from "./client.ts";
import { startCuttingProxy } from "./cutting-proxy.ts";
import { type DevServer, freePort } from "./dev-server.ts";
import { tempDir } from "./processes.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

let harness: SharedHarness;
let server: DevServer;
let legacy: Awaited<ReturnType<typeof startLegacyAgent>>;
let legacyUrl: string;

const a2a = (args: string[], input?: string) => runCli(server.url, args, input);

const scenario = (id: string, turns: unknown[]) => scriptScenario(harness.fake.url, id, turns);

beforeAll(async () => {
  legacy = await startLegacyAgent();
  legacyUrl = legacy.url;
  harness = await sharedScriptedHarness();
  ({ server } = harness);
});

afterAll(async () => {
  await harness?.release();
  await legacy?.close();
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
    // A conversation of our own, so that the anonymous caller can list this task below.
    const context = crypto.randomUUID();
    const { code, out } = await a2a([
      "send",
      "assistant",
      `What is it? ${marker}`,
      "--context",
      context,
    ]);
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
    // The state is on the first line, whatever it is (issue 17: it was missing for a completed task).
    expect(got.out).toContain(`task ${json.id} · context ${json.contextId} · completed\n`);
    expect(got.out).toContain("json please");
    // An anonymous caller lists the conversation it names.
    const listed = await a2a(["tasks", "assistant", "--context", json.contextId, "--limit", "5"]);
    expect(listed.out).toContain(`${json.id}  completed`);
    // A preview of what was asked and what came back under each task.
    expect(listed.out).toMatch(/\n {4}“\[\[reply:json please\]\]” → json please\n/);
    const first = await a2a(["tasks", "assistant", "--context", context]);
    expect(first.out).toContain("“What is it? ");
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

  it("send and stream: the answer once, then the note of the limit that stopped it", async () => {
    const note =
      /✓ completed: The answer was cut off at the agent's output limit \(\d+ tokens\)\.\n$/;
    const cut = (id: string) =>
      scenario(id, [{ text: "Cut short here.", stopReason: "max_tokens", chunkSize: 4 }]);
    const sent = await a2a(["send", "writer", `Go on ${await cut("cli-note-send")}`]);
    expect(sent.code).toBe(0);
    expect(sent.out.split("Cut short here.")).toHaveLength(2);
    expect(sent.out).toMatch(/^Cut short here\.\n/);
    expect(sent.out).toMatch(note);
    const streamed = await a2a(["stream", "writer", `Go on ${await cut("cli-note-stream")}`]);
    expect(streamed.code).toBe(0);
    expect(streamed.out.split("Cut short here.")).toHaveLength(2);
    expect(streamed.out).toContain("Cut short here.\n✓ completed: ");
    expect(streamed.out).toMatch(note);
  });

  it("a task the model declines: its reason printed and exit code 5, send and stream alike", async () => {
    // test/fake-model/recorded/refusal.sse: stop_reason "refusal" with stop_details.
    const marker = await scenario("cli-refusal", [{ recorded: "refusal" }]);
    const reason = "✗ rejected: This request was declined because it could enable cyber harm.\n";
    const sent = await a2a(["send", "writer", `Write an exploit ${marker}`]);
    expect(sent.code).toBe(5);
    expect(sent.out).toBe(reason);
    const streamed = await a2a(["stream", "writer", `Write it anyway ${marker}`]);
    expect(streamed.code).toBe(5);
    expect(streamed.out.endsWith(reason)).toBe(true);
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
    // The hint is a command to copy: the real agent name and this server's URL.
    expect(paused.err).toBe(
      `task ${taskId} · context ${/context (\S+)/.exec(paused.err)?.[1]}\nanswer with: npm run a2a -- send writer --url ${server.url} --task ${taskId} "<your answer>"\n`,
    );
    const answered = await a2a(["send", "writer", "--task", taskId, "Lisbon"]);
    expect(answered.code).toBe(0);
    expect(answered.out).toBe("Booked Lisbon.\n");
    // The ended task's tokens and estimated cost, on stderr (the answer alone is on stdout).
    expect(answered.err).toMatch(
      /\ncost: ~\$\d+\.\d{4} \([\d,]+ in · [\d,]+ out · [\d,]+ cache read · [\d,]+ cache write tokens; 2 model calls; estimated at \S+ list prices\)\n$/,
    );

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
    // About 100 s of streaming: the cancel lands mid-answer however slowly the CLI starts.
    const marker = await scenario("cli-cancel", [
      { text: "x".repeat(400), delayMs: 250, chunkSize: 1 },
    ]);
    const cli = startCli(server.url, ["stream", "writer", `slow ${marker}`]);
    const taskId = (await cli.waitFor(/^task ([0-9a-f-]{36})/))[1] as string;
    const canceled = await a2a(["cancel", "writer", taskId]);
    expect(canceled.out).toBe(`task ${taskId}: canceled\n`);
    expect(await cli.exited).toBe(4);
    expect(cli.out()).toContain("■ canceled");
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
      await fetch(`${harness.fake.url}/_scripted/requests?scenario=cli-run-code`)
    ).json()) as { requests: Array<{ body: { messages: Array<{ content: unknown }> } }> };
    const toolResult = JSON.stringify(requests.requests[1]?.body.messages.at(-1)?.content);
    expect(toolResult).toMatch(/run_code: exit 0 in \d+ ms/);
    expect(toolResult).toContain("--- output ---\\n42");
  });

  it("prompt: the task's newest model request as text, and with --json byte for byte as sent", async () => {
    const agent = servedAgents()[0] as string;
    const marker = await scenario("cli-prompt", [
      { text: "", toolUses: [{ name: "no_such_tool_for_prompt", input: { n: 1 } }] },
      { text: "Seen." },
    ]);
    const sent = JSON.parse((await a2a(["send", agent, `Look ${marker}`, "--json"])).out) as {
      id: string;
    };
    const received = (
      (await (
        await fetch(`${harness.fake.url}/_scripted/requests?scenario=cli-prompt`)
      ).json()) as { requests: Array<{ bodyText: string }> }
    ).requests.map((r) => r.bodyText);
    expect(received.length).toBe(2);
    const shown = await a2a(["prompt", sent.id]);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^request \d+ \(turn \d+, attempt 0, /);
    expect(shown.out).toContain("\n== system\n");
    expect(shown.out).toContain(`\n== user\n<environment>`);
    expect(shown.out).toContain(`Look ${marker}`);
    expect(shown.out).toContain('[tool call no_such_tool_for_prompt {"n":1}]');
    const json = JSON.parse((await a2a(["prompt", sent.id, "--json"])).out) as {
      requests: Array<{ body: string }>;
    };
    expect(json.requests.map((r) => r.body)).toEqual(received);
    const unknown = await a2a(["prompt", crypto.randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("not found (HTTP 404)");
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

describe("what the CLI says when something is off", () => {
  it("a server that is not running: which URL, and to start npm run dev", async () => {
    const port = await freePort();
    const run = await runCli(`http://127.0.0.1:${port}`, ["send", "writer", "hello"]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `a2a: cannot reach http://127.0.0.1:${port}: is \`npm run dev\` running? (npm run dev -- --port ${port})\n`,
    );
    const unknownHost = await runCli(server.url, ["card", "https://nonexistent.invalid/"]);
    expect(unknownHost.err).toBe("a2a: cannot resolve nonexistent.invalid: check the URL\n");
  });

  it("an unknown agent: the agents the harness has", async () => {
    const run = await a2a(["stream", "wirter", "hello"]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `a2a: no agent "wirter" at ${server.url}; its agents: ${servedAgents().join(", ")}\n`,
    );
    expect((await a2a(["card", "Writer!"])).err).toMatch(
      /^a2a: "Writer!" is neither a URL nor an agent name \(lower case, digits, -\)\n\nusage: /,
    );
    expect((await runCli(server.url, ["card", `${harness.fake.url}/nothing/`])).err).toMatch(
      /^a2a: no agent card at http:\/\/127\.0\.0\.1:\d+\/nothing\/\.well-known\/agent-card\.json \(HTTP 404\)\n$/,
    );
  });

  it("a task that is not there, a refused token", async () => {
    const id = crypto.randomUUID();
    expect((await a2a(["get", "writer", id])).err).toBe(
      `a2a: no task ${id} at writer: it does not exist or is not yours (npm run a2a -- tasks writer lists yours)\n`,
    );
    const refused = await a2a(["send", "writer", "hi", "--token", "a2a_not-a-token"]);
    expect(refused.err).toMatch(
      /^a2a: writer refused the token \(mistyped, revoked or expired\?\): /,
    );
    // Wrong command lines: cli-lines.test.ts.
  });

  it("an empty task list says how anonymous callers find theirs", async () => {
    const run = await a2a(["tasks", "writer", "--state", "rejected"]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      "no tasks matching the filters. Anonymous callers see their tasks per conversation: add --context <id> (send, stream and chat print it), or pass --token to see all of yours.\n",
    );
  });

  it("auth-required: send stops with exit code 3 and the hint; chat takes the next line as the answer", async () => {
    const turns = [
      {
        text: "",
        toolUses: [
          {
            name: "ask_user",
            input: { question: "Sign in at https://login.example/start", authorization: true },
          },
        ],
      },
      { text: "Signed in." },
    ];
    const paused = await a2a(["send", "writer", `Connect ${await scenario("cli-auth", turns)}`]);
    expect(paused.code).toBe(3);
    expect(paused.out).toContain("? auth-required: Sign in at https://login.example/start");
    expect(paused.err).toContain("answer with: npm run a2a -- send writer");
    const chat = await a2a(
      ["chat", "writer"],
      `Connect ${await scenario("cli-auth-chat", turns)}\ndone, signed in\n`,
    );
    expect(chat.code).toBe(0);
    expect(chat.out).toContain("? auth-required: Sign in at https://login.example/start");
    expect(chat.out).toContain("Signed in.\n✓ completed");
  });

  it("chat: /new says how to come back to the conversation it leaves", async () => {
    const run = await a2a(["chat", "writer"], "[[reply:first]]\n/new\n/new\n/nope\n");
    const contextId = /context ([0-9a-f]{32}) · submitted/.exec(run.out)?.[1] as string;
    const back = `npm run a2a -- chat writer --url ${server.url} --context ${contextId}`;
    expect(run.out).toContain(
      `you> /new\nnew conversation; the last one (context ${contextId}) goes on with: ${back}\n`,
    );
    expect(run.out).toContain("you> /new\nnew conversation (nothing was said in this one yet)\n");
    expect(run.out).toContain(
      "you> /nope\nunknown command /nope: /new starts a new conversation, /agents lists the agents, /exit leaves\n",
    );
  });

  it("chat follows the harness's agents: an upload and a drop are told at the prompt, /agents lists them", async () => {
    const admin = /Authorization: Bearer (dev-admin-\S+)/.exec(server.output())?.[1] as string;
    expect(admin).toBeTruthy();
    const name = `cli-ev-${crypto.randomUUID().slice(0, 8)}`;
    const configHome = tempDir("a2a-cli-config-");
    const cli = startCli(server.url, ["chat", "writer"], { XDG_CONFIG_HOME: configHome });
    /** Waits until the output after `from` matches `pattern`. */
    const waitFor = async (pattern: RegExp, from = 0) => {
      const deadline = Date.now() + 60_000;
      while (!pattern.test(cli.out().slice(from))) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${cli.out()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const identityCall = (method: string, body?: string) =>
      fetch(`${server.url}/api/admin/agents/${name}/identity`, {
        method,
        headers: { Authorization: `Bearer ${admin}` },
        ...(body ? { body } : {}),
      });
    try {
      await waitFor(/you> $/);
      // Until the stream's first roster arrives, /agents says so; then it lists the agents.
      for (let tries = 0; !cli.out().includes("* writer v"); tries++) {
        expect(tries).toBeLessThan(100);
        const before = cli.out().length;
        cli.write("/agents\n");
        await waitFor(/you> $/, before);
        if (!cli.out().includes("* writer v")) await new Promise((r) => setTimeout(r, 200));
      }
      expect(cli.out()).toMatch(/\n {2}assistant v\d+\.\d+\.\d+: /);

      const identity = `---\nname: ${name}\ndescription: Added while chatting.\nversion: 2.0.0\n---\nYou help.\n`;
      expect((await identityCall("PUT", identity)).status).toBe(200);
      await waitFor(
        new RegExp(`you> \\n· agents changed: ${name} added \\(v2\\.0\\.0\\)\\nyou> $`),
      );
      cli.write("/agents\n");
      await waitFor(new RegExp(`\\n {2}${name} v2\\.0\\.0: Added while chatting\\.\\n`));

      expect((await identityCall("DELETE")).status).toBe(204);
      await waitFor(new RegExp(`· agents changed: ${name} removed\\nyou> $`));
      cli.write("", true);
      expect(await cli.exited).toBe(0);
    } finally {
      cli.kill();
      rmSync(configHome, { recursive: true, force: true });
    }
  });

  it("chat resumes a stream cut mid-answer from its last event id: nothing lost, nothing twice", async () => {
    const words = Array.from({ length: 120 }, (_, i) => `w${i}`).join(" ");
    const marker = await scenario("cli-resume", [{ text: words, delayMs: 15, chunkSize: 6 }]);
    const proxy = await startCuttingProxy(server.port, 8);
    try {
      const run = await runCli(proxy.url, ["chat", "writer"], `Tell me ${marker}\n`);
      expect(proxy.cuts()).toBe(1);
      expect(run.code).toBe(0);
      expect(run.out).toMatch(
        /… connection lost; resuming task [0-9a-f-]{36}\n… resumed after event \d+\n/,
      );
      // The answer, its pieces around the notes put together: every word once, in order.
      const text = run.out
        .split("\n")
        .filter((line) => !/^… (connection lost|resumed)/.test(line))
        .join("")
        .replace(/\s+/g, "");
      expect(text).toContain(`…working${words.replaceAll(" ", "")}✓completed`);
    } finally {
      await proxy.close();
    }
  });
});
