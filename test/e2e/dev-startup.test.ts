/**
 * `npm run dev` on a fresh clone, as a newcomer runs it: the checkout's files (no generated
 * bundles, no .wrangler, no .dev.vars) in a new directory, a fresh state dir, no key, no network.
 * It prints at most 30 lines before its banner, none of them wrangler noise, and the banner is
 * the last thing printed before the first request. Then the dev loop: an edited IDENTITY.md is
 * rebuilt and served (a model id one edit from a known one warned about), an edited source file
 * reloads the Worker, a broken identity is reported with its line and column and answers that
 * error while the other agents serve; nothing after the banner is raw JSON. The clone has
 * one agent more than the checkout, made by `npm run new-agent e2e-added` as a user would: the
 * banner, `GET /agents`, its card, a task and the CLI's list have it.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bannerAgents, servedAgents } from "./agent-set.ts";
import { runCli } from "./cli-run.ts";
import { BANNER_END, freePort, startCopyDev } from "./dev-server.ts";
import { copyCheckout, tempDir } from "./processes.ts";

const clone = tempDir("a2a-clone-");
let child: ChildProcess;
/** What npm run dev printed so far. */
let output = () => "";
let url: string;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await condition())) {
    if (child.exitCode !== null)
      throw new Error(`npm run dev exited (${child.exitCode}):\n${output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const agentsJson = async () =>
  (await (await fetch(`${url}/agents`)).json()) as {
    agents: Array<{ name: string; description: string }>;
    unavailable?: Array<{ name: string; error: string }>;
  };

beforeAll(async () => {
  copyCheckout(clone);
  expect(existsSync(join(clone, "src", "agents", "bundled.generated.ts"))).toBe(false);
  execFileSync("npm", ["run", "--silent", "new-agent", "e2e-added"], { cwd: clone });
  expect(servedAgents(clone)).toContain("e2e-added");
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  ({ child, output } = startCopyDev(clone, port));
});

afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
  rmSync(clone, { recursive: true, force: true });
});

describe("npm run dev on a fresh clone", () => {
  it("prints only npm's lines before its banner, and nothing after it before the first request", async () => {
    await until(() => output().includes(BANNER_END), "the banner");
    const lines = output().split("\n");
    const start = lines.findIndex((l) => l.startsWith("  A2A edge harness: "));
    const before = lines.slice(0, start);
    expect(before.length).toBeLessThanOrEqual(30);
    // npm's own header ("> a2a-edge-harness@0.1.0 dev", the command) and its warnings only.
    expect(before.filter((l) => l.trim() && !/^(> |npm (warn|notice) )/.test(l))).toEqual([]);
    const banner = lines.slice(start).join("\n");
    expect(banner).toContain("SCRIPTED LOCAL MODEL, not Claude");
    expect(banner).toMatch(/admin +Authorization: Bearer dev-admin-/);
    expect(banner).toContain(`console  ${url}/console`);
    expect(banner).toContain(`agents   ${bannerAgents(servedAgents(clone))}`);
    expect(banner).toContain("e2e-added");
    const printed = output().length;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(output().slice(printed)).toBe("");
    expect(output().trimEnd().endsWith(BANNER_END)).toBe(true);
    expect(output()).not.toMatch(/Missing required secrets|WARNING|restarting build|getaddrinfo/);
  });

  it("serves the agent npm run new-agent added: listed, its card, a task, the CLI's list", async () => {
    expect((await agentsJson()).agents.map((a) => a.name)).toEqual(servedAgents(clone));
    const card = (await (
      await fetch(`${url}/agents/e2e-added/.well-known/agent-card.json`, {
        headers: { "A2A-Version": "1.0" },
      })
    ).json()) as { name: string; skills: Array<{ tags: string[] }> };
    expect(card.name).toBe("e2e-added");
    expect(card.skills.length).toBeGreaterThan(0);
    for (const skill of card.skills) expect(skill.tags).toEqual(["e2e-added"]);
    const sent = await runCli(url, ["send", "e2e-added", "hello", "--json"]);
    expect(sent.code, sent.err).toBe(0);
    expect(sent.out).toContain("TASK_STATE_COMPLETED");
    const unknown = await runCli(url, ["card", "e2e-missing"]);
    expect(unknown.err).toContain(`its agents: ${servedAgents(clone).join(", ")}`);
  });

  it("rebuilds an edited agent, reloads an edited source file, serves the others beside a broken one", async () => {
    const identity = join(clone, "agents", "writer", "IDENTITY.md");
    const original = readFileSync(identity, "utf8");
    writeFileSync(identity, original.replace(/^description: .*$/m, "$& (edited)"));
    await until(
      async () => (await agentsJson()).agents.some((a) => a.description.endsWith("(edited)")),
      "the edited description",
    );
    expect(output()).toContain("agents/writer/IDENTITY.md changed: rebuilt; the Worker reloads");

    // A model id one edit from a known one: served as written, with a warning in the dev log.
    const typo = original
      .replace(/^model: .*$/m, "")
      .replace(/^name: writer$/m, "$&\nmodel: claude-sonet-4-6");
    writeFileSync(identity, typo);
    await until(
      () =>
        output().includes(
          'frontmatter.model: "claude-sonet-4-6" is not a model the harness knows; did you mean claude-sonnet-4-6?',
        ),
      "the model typo's warning",
    );
    expect(output()).toMatch(/agents\/writer\/IDENTITY\.md:\d+:8: warning: frontmatter\.model/);

    // A broken identity is reported where it is broken; that agent answers the error, the
    // others keep serving.
    writeFileSync(identity, "---\nname: writer\n---\n");
    await until(
      async () => (await agentsJson()).unavailable?.some((a) => a.name === "writer") === true,
      "writer reported unavailable",
    );
    expect(output()).toMatch(/agents\/writer\/IDENTITY\.md:\d+:\d+: body: the system prompt/);
    await until(
      () => output().includes("writer is not served until the error above is fixed"),
      "the not-served line",
    );
    expect((await agentsJson()).agents.map((a) => a.name)).toContain("assistant");
    const card = await fetch(`${url}/agents/writer/.well-known/agent-card.json`);
    expect(card.status).toBe(503);
    expect(await card.text()).toContain("agents/writer/IDENTITY.md");
    // A name that is not the directory's is not served under that name (nor under the
    // directory's): the same checks as the build, with the position.
    writeFileSync(identity, original.replace(/^name: writer$/m, "name: editor"));
    await until(
      async () =>
        (await agentsJson()).unavailable?.some((a) =>
          a.error.startsWith(
            'agents/writer/IDENTITY.md:2:7: frontmatter.name: "editor" must equal the directory name "writer"',
          ),
        ) === true,
      "the misnamed writer reported unavailable",
    );
    expect((await agentsJson()).agents.map((a) => a.name)).not.toContain("editor");
    writeFileSync(identity, original);
    await until(
      async () => (await agentsJson()).agents.some((a) => a.name === "writer"),
      "writer served again",
    );

    // A removed agent: one line, its path once.
    rmSync(join(clone, "agents", "e2e-added"), { recursive: true });
    await until(
      async () => !(await agentsJson()).agents.some((a) => a.name === "e2e-added"),
      "e2e-added gone",
    );
    await until(
      () => output().includes("agents/e2e-added removed: e2e-added is no longer served"),
      "the removed line",
    );
    expect(output()).not.toContain("e2e-added/e2e-added");

    const worker = join(clone, "src", "worker.ts");
    writeFileSync(
      worker,
      readFileSync(worker, "utf8").replace(
        "c.json({ ok: true })",
        "c.json({ ok: true, edited: true })",
      ),
    );
    await until(
      async () =>
        ((await (await fetch(`${url}/health`)).json()) as { edited?: boolean }).edited === true,
      "the reloaded Worker",
    );
    // The reloaded Worker runs keyless again: the banner said so, the log does not repeat it,
    // and no log line after the banner is raw JSON.
    const again = await runCli(url, ["send", "writer", "hello", "--json"]);
    expect(again.code, again.err).toBe(0);
    expect(output()).not.toContain("tasks run on the scripted local model");
    expect(output()).not.toMatch(/\{"level":/);
  });
});
