/**
 * `npm run new-agent <name>` (scripts/new-agent.ts, scripts/agent-template.ts), in Node without a
 * server: the template names every key of the frontmatter schema and is a valid IDENTITY.md as
 * written, with every optional key uncommented and with the exclusive `program` alone; the script
 * writes it under agents/<name>/ and refuses an existing or invalid name with one line; with
 * `--tool` and `--skill` it writes a tool in code and a skill that the build takes, the
 * IDENTITY.md granting the tool its secrets.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkAgent, readAgentFolder, readSharedFolder } from "../../scripts/agent-sources.ts";
import { agentTemplate, toolTemplate } from "../../scripts/agent-template.ts";
import { parseIdentity } from "../../src/agents/identity.ts";
import { agentFrontmatterSchema } from "../../src/agents/identity-schema.ts";
import { ROOT, tempDir } from "./processes.ts";

const script = join(ROOT, "scripts", "new-agent.ts");

/** Runs the script in `cwd`. */
function newAgent(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [script, ...args], { cwd, encoding: "utf8" });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** A project directory: a package.json and an agents/ directory. */
function project(): string {
  const dir = tempDir("a2a-new-agent-");
  writeFileSync(join(dir, "package.json"), "{}");
  mkdirSync(join(dir, "agents"));
  return dir;
}

/** The README's fenced block of `lang` that follows the line starting with `after`. */
function readmeBlock(after: string, lang: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const from = readme.indexOf(`\n${after}`);
  const open = readme.indexOf(`\n\`\`\`${lang}\n`, from);
  const close = readme.indexOf("\n```\n", open + 1);
  expect(from >= 0 && open > from && close > open).toBe(true);
  return readme.slice(open + lang.length + 5, close + 1);
}

describe("the README's agent files", () => {
  it("the smallest file and the every-key example are valid IDENTITY.md files", () => {
    const smallest = readmeBlock("or is not kebab-case. The smallest valid file:", "markdown");
    expect(parseIdentity("agents/reviewer/IDENTITY.md", smallest).name).toBe("reviewer");
    const every = parseIdentity("agents/writer/IDENTITY.md", readmeBlock("Every key.", "yaml"));
    expect(every).toMatchObject({ name: "writer", program: null, effort: "high" });
  });
});

describe("npm run new-agent", () => {
  it("writes a template that is valid as written, its skills tagged", () => {
    const agent = parseIdentity("agents/reviewer/IDENTITY.md", agentTemplate("reviewer"));
    expect(agent).toMatchObject({ name: "reviewer", program: null, modelNamed: false });
    expect(agent.description).toContain("What reviewer does");
    expect(agent.skills).toEqual([
      expect.objectContaining({ name: "Reviewer", tags: ["reviewer"] }),
    ]);
  });

  it("names every key of the frontmatter schema, and no other", () => {
    const keys = agentTemplate("reviewer")
      .split("\n")
      .map((line) => /^(?:# ?)?([a-z][A-Za-z]*):/.exec(line)?.[1])
      .filter((key): key is string => key !== undefined);
    expect([...new Set(keys)].sort()).toEqual(Object.keys(agentFrontmatterSchema().shape).sort());
  });

  it("stays valid with every optional key uncommented", () => {
    const text = agentTemplate("code-reviewer")
      .split("\n")
      .map((line) => line.replace(/^# ( *(?:[a-z][A-Za-z]*:|- ))/, "$1"))
      .join("\n");
    expect(text).not.toBe(agentTemplate("code-reviewer"));
    const agent = parseIdentity("agents/code-reviewer/IDENTITY.md", text);
    expect(agent).toMatchObject({
      modelNamed: true,
      thinking: { budgetTokens: 4096 },
      effort: "high",
      tags: ["review"],
      access: { roles: ["user", "admin"], users: null },
    });
    expect(agent.tools.allow).toContain("read_file");
    expect(agent.tools.requireApproval).toEqual(["checkpoint_restore"]);
    expect(agent.mcp.map((m) => m.name)).toEqual(["docs"]);
    expect(agent.extendedSkills.map((k) => k.name)).toEqual(["Billing"]);
    expect(agent.program).toBeNull();
  });

  it("stays valid with the exclusive program key alone uncommented", () => {
    const text = agentTemplate("conformer").replace(/^#program:/m, "program:");
    expect(parseIdentity("agents/conformer/IDENTITY.md", text).program).toBe("conformance");
  });

  it("creates agents/<name>/IDENTITY.md, and refuses an existing or invalid name in one line", () => {
    const dir = project();
    const made = newAgent(dir, "reviewer");
    expect(made).toMatchObject({ code: 0, err: "" });
    expect(made.out).toMatch(/^agents\/reviewer\/IDENTITY\.md: created\. .*\/agents\/reviewer\//);
    const file = join(dir, "agents", "reviewer", "IDENTITY.md");
    expect(readFileSync(file, "utf8")).toBe(agentTemplate("reviewer"));

    writeFileSync(file, "mine");
    expect(newAgent(dir, "reviewer")).toEqual({
      code: 1,
      out: "",
      err: "new-agent: agents/reviewer/IDENTITY.md: agents/reviewer exists already; choose another name or edit that file\n",
    });
    expect(readFileSync(file, "utf8")).toBe("mine");
    for (const args of [["Reviewer"], ["my_agent"], [], ["a", "b"]]) {
      const run = newAgent(dir, ...args);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^new-agent: [^\n]+\n$/);
    }
    expect(newAgent(dir, "Reviewer").err).toContain('"Reviewer" is not an agent name');
    expect(newAgent(tempDir("a2a-new-agent-"), "x").err).toContain("run it from the project root");
  });

  it("writes a tool that calls an API with its secret, and a skill, with --tool and --skill", () => {
    const dir = project();
    const made = newAgent(dir, "orders", "--tool", "lookup_order", "--skill", "refunds");
    expect(made).toMatchObject({ code: 0, err: "" });
    expect(made.out).toMatch(
      /^agents\/orders\/IDENTITY\.md, agents\/orders\/tools\/lookup_order\.ts, agents\/orders\/skills\/refunds\/SKILL\.md: created\. /,
    );
    expect(made.out).toContain("npx wrangler secret put LOOKUP_ORDER_API_KEY");
    const tool = readFileSync(join(dir, "agents/orders/tools/lookup_order.ts"), "utf8");
    expect(tool).toBe(toolTemplate("orders", "lookup_order"));
    expect(tool).toContain('import { defineAgentTool } from "#harness/tool";');
    expect(tool).toContain('const KEY = "LOOKUP_ORDER_API_KEY";');
    expect(tool).toContain("context.fetch(url");
    const agent = checkAgent(readAgentFolder(dir, "orders"), readSharedFolder(dir));
    expect(agent).toMatchObject({
      customTools: ["lookup_order"],
      tools: { secrets: ["LOOKUP_ORDER_API_URL", "LOOKUP_ORDER_API_KEY"] },
    });
    expect(agent.skillFolders.map((s) => s.name)).toEqual(["refunds"]);
    expect(agent.skills.map((s) => s.name)).toEqual(["Orders", "refunds"]);
    for (const args of [
      ["shop", "--tool", "Lookup"],
      ["shop", "--tool", "read_file"],
      ["shop", "--skill", "Refunds"],
      ["shop", "--tool"],
      ["shop", "--frob", "x"],
    ]) {
      const run = newAgent(dir, ...args);
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.err).toMatch(/^new-agent: [^\n]+\n$/);
    }
  });
});
