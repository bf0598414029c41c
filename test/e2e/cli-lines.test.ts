/**
 * What the CLI prints at its edges (issue 29): the usage on help and its one-line errors on a
 * wrong command line (exit 2); why an agent is down (the server's own line, not only "HTTP 503");
 * `send` naming its task at once, following it through a cut connection without sending twice,
 * and saying where to find a task whose id never arrived; Ctrl-C saying how to follow or cancel
 * the task that runs on (exit 130) and `stream --task` following it (and showing it once it has
 * ended, its answer included); `get` printing the answer once; an ended task named as such; a
 * form answer that does not fit asked again in chat.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli, startCli } from "./cli-run.ts";
import { scenario as scriptScenario } from "./client.ts";
import { startCuttingProxy } from "./cutting-proxy.ts";
import { type SharedHarness, sharedScriptedHarness } from "./shared-harness.ts";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("the command line", () => {
  it("help, --help and no arguments print the usage on stdout, exit 0", async () => {
    for (const args of [[], ["help"], ["--help"], ["send", "-h"]]) {
      const run = await spawnCli(args);
      expect(run.code).toBe(0);
      expect(run.err).toBe("");
      expect(run.out).toMatch(/^usage: a2a <command>/);
      expect(run.out).toContain("--state <state>   tasks: only tasks in this state: submitted,");
      expect(run.out).toContain("--limit <n>");
      expect(run.out).toContain("--history <n>");
    }
  });

  it("a wrong command line: one line naming what is wrong, then the usage, exit 2", async () => {
    const cases: Array<[string[], string]> = [
      [["card", "writer", "--verbose"], "unknown option --verbose"],
      [["card", "writer", "--url"], "--url needs a value"],
      [["card", "writer", "--json=yes"], "--json takes no value"],
      [["frob", "writer"], 'unknown command "frob"'],
      [["send"], "send needs an agent name or URL"],
      // (Its standard input is a closed pipe, so it looked there too.)
      [["send", "writer"], "send needs the message text (standard input was empty)"],
      [["get", "writer"], "get needs a task id (npm run a2a -- tasks writer lists yours)"],
      [
        ["tasks", "writer", "--limit", "many"],
        '--limit needs a whole number from 1 to 100, not "many"',
      ],
      [
        ["tasks", "writer", "--state", "done"],
        '--state takes one of submitted, working, input-required, auth-required, completed, failed, canceled, rejected, not "done"',
      ],
      [["card", "Writer!"], '"Writer!" is neither a URL nor an agent name (lower case, digits, -)'],
    ];
    for (const [args, line] of cases) {
      const run = await spawnCli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.out).toBe("");
      expect(run.err).toMatch(new RegExp(`^a2a: ${escapeRegExp(line)}\\n\\nusage: a2a <command>`));
      expect(run.err).not.toMatch(/ERR_PARSE_ARGS|To specify a positional/);
    }
  });
});

describe("an agent that is down", () => {
  const reason = `Agent 'writer' is unavailable: its IDENTITY.md is invalid: agents/writer/IDENTITY.md:3:8: maxTurns: ${"too large ".repeat(40)}`;
  let url = "";
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    // The card answers; the calls answer 503 with a REST error body (what a proxy or a broken
    // agent sends). /down/ answers 503 for the card too.
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      const down = { error: { code: 503, status: "UNAVAILABLE", message: reason } };
      if (req.url?.startsWith("/down/")) {
        res.statusCode = 503;
        res.end(JSON.stringify(down));
        return;
      }
      if (req.method === "GET") {
        res.end(
          JSON.stringify({
            name: "writer",
            description: "d",
            version: "1.0.0",
            supportedInterfaces: [
              { url: `${url}/up/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
            ],
            capabilities: { streaming: false },
            defaultInputModes: ["text/plain"],
            defaultOutputModes: ["text/plain"],
            skills: [],
          }),
        );
        return;
      }
      res.statusCode = 503;
      res.end(JSON.stringify(down));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  it("prints the server's reason on one line, at most 300 characters", async () => {
    const card = await spawnCli(["card", `${url}/down/`]);
    expect(card.code).toBe(1);
    const cardLine = `a2a: ${url}/down/ is not available (HTTP 503): ${reason.replace(/\s+/g, " ").trim().slice(0, 299)}…\n`;
    expect(card.err).toBe(cardLine);
    const sent = await spawnCli(["send", `${url}/up/`, "hello"]);
    expect(sent.code).toBe(1);
    expect(sent.err).toMatch(
      /^a2a: http:\/\/127\.0\.0\.1:\d+\/up\/ answered HTTP 503: Agent 'writer' is unavailable: its IDENTITY\.md is invalid: agents\/writer\/IDENTITY\.md:3:8: maxTurns: too large/,
    );
    expect(sent.err.split("\n")).toHaveLength(2);
    expect(sent.err.length).toBeLessThan(400);
  });
});

describe("send, stream and get against wrangler dev", () => {
  let harness: SharedHarness;
  const scenario = (id: string, turns: unknown[]) => scriptScenario(harness.fake.url, id, turns);

  beforeAll(async () => {
    harness = await sharedScriptedHarness();
  });
  afterAll(async () => {
    await harness?.release();
  });

  it("send names the task at once on stderr; Ctrl-C says it runs on; stream --task follows it, and shows it ended", async () => {
    // Slow (about 20 s of chunks), so the task is still working when the ids are seen.
    const text = "x".repeat(200);
    const marker = await scenario("lines-ids", [{ text, delayMs: 100, chunkSize: 1 }]);
    const run = startCli(harness.server.url, ["send", "writer", `Go ${marker}`]);
    const [, taskId] = await run.waitFor(/^task ([0-9a-f-]{36}) · context [0-9a-f-]+\n/);
    run.kill("SIGINT");
    expect(await run.exited).toBe(130);
    // Named before the answer, which never came: stdout is empty.
    expect(run.out()).toBe("");
    const name = `writer --url ${harness.server.url}`;
    expect(run.err()).toContain(
      `\na2a: interrupted; task ${taskId} runs on at the agent: follow it with npm run a2a -- stream ${name} --task ${taskId}, cancel it with npm run a2a -- cancel ${name} ${taskId}\n`,
    );
    const followed = await runCli(harness.server.url, [
      "stream",
      "writer",
      "--task",
      taskId as string,
    ]);
    expect(followed.code).toBe(0);
    expect(followed.out).toMatch(new RegExp(`^task ${taskId} · `));
    const body = followed.out.split("\n").filter((l) => !l.startsWith("task "));
    expect(body.join("").replace(/[^x]/g, "")).toBe(text);
    expect(followed.out).toContain("✓ completed");
    // Followed once it has ended: the task as it ended, its answer included (not an error).
    const ended = await runCli(harness.server.url, [
      "stream",
      "writer",
      "--task",
      taskId as string,
    ]);
    expect(ended.code, ended.err).toBe(0);
    expect(ended.out).toBe(
      `task ${taskId} · context ${/context (\S+)/.exec(followed.out)?.[1]} · completed\n${text}\n✓ completed\n`,
    );
    expect(ended.err).toMatch(/^cost: /);
    const json = await runCli(harness.server.url, [
      "stream",
      "writer",
      "--task",
      taskId as string,
      "--json",
    ]);
    expect(JSON.parse(json.out)).toMatchObject({
      task: { id: taskId, status: { state: "TASK_STATE_COMPLETED" } },
    });
  });

  it("send through a cut connection resumes the same task: one task, the whole answer", async () => {
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
    const marker = await scenario("lines-cut", [{ text: words, delayMs: 15, chunkSize: 6 }]);
    const proxy = await startCuttingProxy(harness.server.port, 5);
    try {
      const run = await runCli(proxy.url, ["send", "writer", `Tell me ${marker}`]);
      expect(proxy.cuts()).toBe(1);
      expect(run.code).toBe(0);
      expect(run.out).toBe(`${words}\n`);
      const contextId = /context ([0-9a-f-]+)/.exec(run.err)?.[1] as string;
      const listed = await runCli(harness.server.url, [
        "tasks",
        "writer",
        "--context",
        contextId,
        "--json",
      ]);
      expect((JSON.parse(listed.out) as { tasks: unknown[] }).tasks).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("a cut before the task's id arrives says which tasks command finds it", async () => {
    const marker = await scenario("lines-cut-early", [{ text: "Found me." }]);
    const proxy = await startCuttingProxy(harness.server.port, 0);
    try {
      const run = await runCli(proxy.url, ["send", "writer", `Start ${marker}`]);
      expect(run.code).toBe(1);
      const match =
        /^a2a: the connection to http:\/\/127\.0\.0\.1:\d+ was cut before the task's id arrived; the message may have started a task, which then runs on: npm run a2a -- tasks writer --url http:\/\/127\.0\.0\.1:\d+ --context ([0-9a-f-]+) finds it \(look before sending again\)\n$/.exec(
          run.err,
        );
      expect(match).not.toBeNull();
      // The command finds it, on the server itself.
      const deadline = Date.now() + 60_000;
      let listed = "";
      while (!listed.includes("completed") && Date.now() < deadline) {
        listed = (
          await runCli(harness.server.url, ["tasks", "writer", "--context", match?.[1] as string])
        ).out;
        if (!listed.includes("completed")) await new Promise((r) => setTimeout(r, 200));
      }
      expect(listed).toMatch(/completed .*\n.*“Start .*” → Found me\./);
    } finally {
      await proxy.close();
    }
  });

  it("Ctrl-C on stream says the task runs on; the cancel it names cancels it", async () => {
    const marker = await scenario("lines-sigint", [
      { text: "y".repeat(400), delayMs: 50, chunkSize: 1 },
    ]);
    const run = startCli(harness.server.url, ["stream", "writer", `slow ${marker}`]);
    const [, taskId] = await run.waitFor(/^task ([0-9a-f-]{36})/m);
    await run.waitFor(/yyyy/);
    run.kill("SIGINT");
    expect(await run.exited).toBe(130);
    const cancel = new RegExp(
      `cancel it with npm run a2a -- (cancel writer --url \\S+ ${taskId})\n`,
    ).exec(run.err());
    expect(cancel).not.toBeNull();
    const args = String(cancel?.[1]).split(" ");
    const canceled = await spawnCli([...args], { env: { A2A_URL: "" } });
    expect(canceled.out).toBe(`task ${taskId}: canceled\n`);
  });

  it("get prints the answer once; a message to an ended task says it ended, and its state", async () => {
    const answer = `${"A long answer with many words in it. ".repeat(12)}The end.`;
    const marker = await scenario("lines-get", [{ text: answer }]);
    const sent = await runCli(harness.server.url, ["send", "writer", `Say it ${marker}`, "--json"]);
    const { id } = JSON.parse(sent.out) as { id: string };
    const got = await runCli(harness.server.url, ["get", "writer", id]);
    expect(got.code).toBe(0);
    expect(got.out.split("The end.")).toHaveLength(2);
    expect(got.out).toContain(`  you: Say it ${marker}\n`);
    expect(got.out.endsWith(`${answer}\n`)).toBe(true);
    const again = await runCli(harness.server.url, ["send", "writer", "--task", id, "more"]);
    expect(again.code).toBe(1);
    expect(again.err).toBe(
      `a2a: task ${id} has ended (completed): it takes no more messages; see it with npm run a2a -- get writer ${id}, or send without --task to start a new one\n`,
    );
  });

  it("chat asks a form field again when the answer does not fit, with the reason and the choices", async () => {
    const form = await scenario("lines-form", [
      {
        text: "",
        toolUses: [
          {
            name: "ask_user",
            input: {
              question: "Which day?",
              fields: {
                day: { type: "string", enum: ["mon", "fri"] },
                people: { type: "integer" },
              },
              required: ["day"],
            },
          },
        ],
      },
      { text: "Booked." },
    ]);
    const run = await runCli(
      harness.server.url,
      ["chat", "writer"],
      `Plan it ${form}\nwed\n\nfri\n2.5\n3\n`,
    );
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      [
        "  day (mon|fri): wed",
        '  "wed" is not a choice of day (one of: mon, fri); try again',
        "  day (mon|fri): ",
        "  day is required (one of: mon, fri); try again",
        "  day (mon|fri): fri",
        "  people [optional]: 2.5",
        '  people needs a whole number, not "2.5"; try again',
        "  people [optional]: 3",
      ].join("\n"),
    );
    expect(run.out).toContain("Booked.\n✓ completed");
  });
});
