/**
 * An agent extended with a tool in code and an Agent Skill, in a fresh copy of the checkout, as a
 * user extends one: `npm run new-agent -- e2e-extended --tool lookup --skill refunds`, the
 * skill's instructions written, the tool's URL and secret in .dev.vars (a fake API on 127.0.0.1
 * that answers only that bearer token). The new files pass the lint and the agent build; under
 * `npm run dev` (keyless, the scripted model) the model calls the tool and loads the skill and
 * both reach it; the tool's span and the task's cost are in its trace. A type error in the tool
 * is reported at its file:line by `npm run dev`, which keeps serving the other agents while that
 * one answers the error, and serves it again once the scaffold's text is back (so the scaffold
 * passes the type check, which runs with the project's compiler options); and by `npm run
 * typecheck`. The lint and the type check of the rest of the copy are the checkout's own, which
 * `npm test` runs; a whole-project check happens here once, the failing one, as it costs most of
 * this file's time. A skill's instructions staying out of the prompt until loaded is
 * test/integration/skills.test.ts's (it sees the model's requests).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attr, type Otlp, spansOf } from "../helpers/otlp.ts";
import { servedAgents } from "./agent-set.ts";
import { BANNER_END, freePort, startCopyDev } from "./dev-server.ts";
import { collectOutput, copyCheckout, tempDir } from "./processes.ts";

const AGENT = "e2e-extended";
const TOOL = `agents/${AGENT}/tools/lookup.ts`;
const KEY = `key-${crypto.randomUUID()}`;
const SKILL_MARKER = "REFUND-SKILL-STEPS";
const clone = tempDir("a2a-extend-");
let api: Server;
/** The requests the fake API received: path and query, and whether the bearer was right. */
const apiCalls: Array<{ url: string; authorized: boolean }> = [];
let dev: ChildProcess | undefined;
let output = () => "";
let url = "";

/** Runs `command` in the clone to its end: exit code and everything printed. */
function runInClone(command: string, args: string[]): Promise<{ code: number; out: string }> {
  const child = spawn(command, args, { cwd: clone, stdio: ["ignore", "pipe", "pipe"] });
  const all = collectOutput(child).all;
  return new Promise((resolve) =>
    child.once("close", (code) => resolve({ code: code ?? -1, out: all() })),
  );
}

/** `npm run <script>` in the clone. */
const npmRun = (script: string) => runInClone("npm", ["run", script]);
/** `npx <args>` in the clone. */
const npx = (...args: string[]) => runInClone("npx", args);

/** The bound of one wait, generous (a loaded machine's tsc): only a failing test waits it out. */
const WAIT_MS = 400_000;
/** The bound of a test that starts npm run dev or a type check. */
const TEST_MS = 600_000;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await condition())) {
    if (dev && (dev.exitCode !== null || dev.signalCode !== null))
      throw new Error(`npm run dev exited (${dev.exitCode ?? dev.signalCode}):\n${output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const agentsJson = async () =>
  (await (await fetch(`${url}/agents`)).json()) as {
    agents: Array<{ name: string }>;
    unavailable?: Array<{ name: string; error: string }>;
  };

/** Sends `text` to the agent (v1.0 JSON-RPC, blocking); the task. */
async function send(text: string) {
  const response = await fetch(`${url}/agents/${AGENT}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
      },
    }),
  });
  return (
    (await response.json()) as {
      result: {
        task: {
          id: string;
          status: { state: string };
          artifacts?: Array<{ parts: Array<{ text?: string }> }>;
        };
      };
    }
  ).result.task;
}

beforeAll(async () => {
  api = createServer((request, response) => {
    const authorized = request.headers.authorization === `Bearer ${KEY}`;
    apiCalls.push({ url: request.url ?? "", authorized });
    response.writeHead(authorized ? 200 : 401, { "content-type": "application/json" });
    response.end(JSON.stringify(authorized ? { order: 7, status: "ORDER-SHIPPED" } : {}));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  copyCheckout(clone);
  execFileSync(
    "npm",
    ["run", "--silent", "new-agent", "--", AGENT, "--tool", "lookup", "--skill", "refunds"],
    { cwd: clone },
  );
  const skill = join(clone, "agents", AGENT, "skills", "refunds", "SKILL.md");
  writeFileSync(
    skill,
    readFileSync(skill, "utf8").replace(
      /\n# Refunds\n[\s\S]*$/,
      `\n${SKILL_MARKER}: look the order up with lookup, then refund it within 30 days.\n`,
    ),
  );
  const port = (api.address() as AddressInfo).port;
  writeFileSync(
    join(clone, ".dev.vars"),
    `LOOKUP_API_URL=http://127.0.0.1:${port}/orders\nLOOKUP_API_KEY=${KEY}\nWEB_FETCH_ALLOW_PRIVATE=true\n`,
  );
});

afterAll(async () => {
  await stopDev();
  await new Promise((resolve) => api?.close(resolve));
  rmSync(clone, { recursive: true, force: true });
});

async function stopDev(): Promise<void> {
  const running = dev;
  dev = undefined;
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    const exited = new Promise((resolve) => running.once("exit", resolve));
    process.kill(-running.pid, "SIGTERM");
    await exited;
  }
}

describe("an agent extended with a tool and a skill, in a fresh copy", () => {
  it("writes files that pass the lint and the agent build", { timeout: TEST_MS }, async () => {
    const lint = await npx("biome", "check", `agents/${AGENT}`);
    expect(lint.code, lint.out).toBe(0);
    const build = await npmRun("agents");
    expect(build.code, build.out).toBe(0);
    expect(build.out).toMatch(new RegExp(`agents: bundled \\d+ \\(.*${AGENT}`));
    expect(servedAgents(clone)).toContain(AGENT);
  });

  it("uses both under npm run dev: their results reach the model, the tool's span and the cost are in the trace", {
    timeout: TEST_MS,
  }, async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const started = startCopyDev(clone, port);
    dev = started.child;
    output = started.output;
    await until(() => output().includes(BANNER_END), "the banner");
    expect(output()).toContain(AGENT);

    const task = await send(
      `Refund order 7. [[tool:lookup {"query":"order 7"}]] [[tool:skill_load {"name":"refunds"}]]`,
    );
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const answer = (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text)).join("");
    // The scripted model's answer quotes each tool result it was given.
    expect(answer).toContain('Tool lookup returned: {"order":7,"status":"ORDER-SHIPPED"}');
    expect(answer).toContain(`Tool skill_load returned: <skill_content name="refunds">`);
    expect(answer).toContain(SKILL_MARKER);
    expect(apiCalls).toEqual([{ url: "/orders?q=order+7", authorized: true }]);

    const admin = /Authorization: Bearer (dev-admin-[\w-]+)/.exec(output())?.[1];
    const trace = (await (
      await fetch(`${url}/api/tasks/${task.id}/trace`, {
        headers: { Authorization: `Bearer ${admin}` },
      })
    ).json()) as Otlp;
    const spans = spansOf(trace);
    const tool = spans.find((s) => s.name === "execute_tool lookup");
    expect(tool && attr(tool, "a2a.tool.outcome")).toBe("ok");
    expect(spans.some((s) => s.name === "execute_tool skill_load")).toBe(true);
    const root = spans.find((s) => s.name === `invoke_agent ${AGENT}`);
    expect(Number(root && attr(root, "a2a.task.cost_usd"))).toBeGreaterThan(0);
  });

  it("reports a type error in the tool at its file:line and serves the other agents, until it is fixed", {
    timeout: TEST_MS,
  }, async () => {
    const path = join(clone, TOOL);
    const good = readFileSync(path, "utf8");
    writeFileSync(
      path,
      good.replace("const MAX_CHARS = 8_000;", 'const MAX_CHARS: number = "8000";'),
    );
    const error = new RegExp(
      `^agents/${AGENT}/tools/lookup\\.ts:\\d+:\\d+: TS2322: Type 'string' is not assignable to type 'number'\\.`,
    );
    await until(
      async () =>
        (await agentsJson()).unavailable?.some((a) => a.name === AGENT && error.test(a.error)) ===
        true,
      "the agent reported unavailable",
    );
    await until(
      () =>
        output().includes(`${TOOL} changed: ${AGENT} is not served until the error above is fixed`),
      "the not-served line",
    );
    expect(output()).toMatch(
      new RegExp(`\\n${TOOL.replace(/\./g, "\\.")}:\\d+:\\d+: TS2322: .*\\(not served until fixed`),
    );
    const served = (await agentsJson()).agents.map((a) => a.name);
    expect(served).toEqual(servedAgents(clone).filter((name) => name !== AGENT));
    const card = await fetch(`${url}/agents/${AGENT}/.well-known/agent-card.json`);
    expect(card.status).toBe(503);
    expect(await card.text()).toContain(
      "one of its tools is invalid: agents/e2e-extended/tools/lookup.ts:",
    );

    writeFileSync(path, good);
    await until(
      async () => (await agentsJson()).agents.some((a) => a.name === AGENT),
      "the agent served again",
    );
    await until(() => output().includes(`${TOOL} changed: rebuilt; the Worker reloads`), "the fix");
  });

  it("fails npm run typecheck at the tool's file and line", { timeout: TEST_MS }, async () => {
    await stopDev();
    const path = join(clone, TOOL);
    writeFileSync(
      path,
      readFileSync(path, "utf8").replace(
        "const MAX_CHARS = 8_000;",
        'const MAX_CHARS: number = "8000";',
      ),
    );
    const typecheck = await npmRun("typecheck");
    expect(typecheck.code).not.toBe(0);
    expect(typecheck.out).toMatch(
      /agents\/e2e-extended\/tools\/lookup\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\./,
    );
  });
});
