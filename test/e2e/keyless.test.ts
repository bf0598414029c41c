/**
 * A newcomer's first run: `npm run dev` with no ANTHROPIC_API_KEY anywhere. The harness works on
 * the scripted local model and says so in the log, the card and the task's metadata, and its cost
 * is marked as simulated (the extension, the CLI's cost line). Also the
 * `npm run card` script.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli-run.ts";
import { answerOf, asTask, stateOf, textRequest } from "./client.ts";
import { type DevServer, freePort, startDevServer } from "./dev-server.ts";
import { ROOT } from "./processes.ts";

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: await freePort() });
});

afterAll(async () => {
  await server?.stop();
});

describe("without a key", () => {
  it("runs tasks on the scripted local model and announces it everywhere", async () => {
    expect(server.output()).toContain("SCRIPTED LOCAL MODEL, not Claude");
    const client = await new ClientFactory().createFromUrl(server.url);
    const card = await client.getAgentCard();
    expect(card.description).toContain("scripted local model, not Claude");
    const task = asTask(await client.sendMessage(textRequest("Hello from a newcomer")));
    expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
    expect(answerOf(task)).toContain("scripted local model");
    expect(answerOf(task)).toContain("Hello from a newcomer");
    expect(task.metadata?.model).toMatchObject({ source: "scripted-local-model" });
    // Its cost is counted as Claude's would be, and marked as simulated (nothing was charged).
    expect(task.metadata?.["urn:a2a-edge-harness:ext:cost:v1"]).toMatchObject({
      simulated: true,
      estimatedCostUsd: expect.any(Number),
    });
  });

  it("marks the CLI's cost line as simulated", async () => {
    const sent = await runCli(server.url, ["send", "writer", "Hello again"]);
    expect(sent.code, sent.err).toBe(0);
    expect(sent.err).toMatch(
      /\ncost: ~\$\d+\.\d{4} \(simulated\) \(.*; simulated: the scripted local model, nothing charged; priced as \S+ would be\)\n$/,
    );
  });
});

describe("npm run card", () => {
  const run = promisify(execFile);
  it("prints an agent's card for a given public URL", async () => {
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, "scripts", "card.ts"), "writer", "--url", "https://agents.example.com"],
      {
        env: { ...process.env, ANTHROPIC_API_KEY: "", A2A_API_KEY: "" },
      },
    );
    const card = JSON.parse(stdout) as {
      name: string;
      supportedInterfaces: Array<{ url: string }>;
      skills: unknown[];
    };
    expect(card.name).toBe("writer");
    expect(card.supportedInterfaces[0]?.url).toBe("https://agents.example.com/agents/writer/");
    expect(card.skills.length).toBeGreaterThan(0);
  });

  it("fails clearly for an unknown agent", async () => {
    await expect(
      run(process.execPath, [join(ROOT, "scripts", "card.ts"), "nobody"]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("agents/nobody/IDENTITY.md: not found"),
    });
  });
});
