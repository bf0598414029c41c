/**
 * IDENTITY.md parsing: frontmatter validation and defaults, error messages (file + field),
 * description and skill extraction, and the bundled agents' registry.
 */
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../../src/agents/identity.ts";
import { AgentRegistry, bundledAgents } from "../../../src/agents/registry.ts";
import { identityErrorOf, identityText } from "../../helpers/identities.ts";

const FILE = "agents/demo/IDENTITY.md";

/** An IDENTITY.md with the given frontmatter lines and body. */
const identity = (frontmatter: string[], body = "You are demo. You help.") =>
  identityText(frontmatter, body);

/** The IdentityError thrown by parsing `text`; fails the test when nothing is thrown. */
const errorOf = (text: string, file = FILE) => identityErrorOf(file, text);

describe("parseIdentity: frontmatter", () => {
  it("reads every field of a full identity", () => {
    const text = identity(
      [
        "name: demo",
        "description: A demo agent.",
        "version: 2.1.0-beta.1",
        "model: claude-opus-4-5",
        "maxTurns: 12",
        "maxTokens: 20000",
        "thinking:",
        "  budgetTokens: 10000",
        "effort: medium",
        "tools:",
        "  allow: [read_file, web_fetch]",
        "  deny: [write_file]",
        "tags: [demo, test]",
        "icon: https://example.com/icon.png",
        "starters:",
        "  - Say hello",
        "  - Explain yourself",
      ],
      "  You are **demo**.\n\nMore text.  \n",
    );
    const agent = parseIdentity(FILE, text);
    expect(agent).toMatchObject({
      name: "demo",
      description: "A demo agent.",
      version: "2.1.0-beta.1",
      model: "claude-opus-4-5",
      maxTurns: 12,
      maxTokens: 20000,
      thinking: { budgetTokens: 10000 },
      effort: "medium",
      tools: { allow: ["read_file", "web_fetch"], deny: ["write_file"] },
      tags: ["demo", "test"],
      icon: "https://example.com/icon.png",
      starters: ["Say hello", "Explain yourself"],
      systemPrompt: "You are **demo**.\n\nMore text.",
      file: FILE,
    });
  });

  it("applies defaults for every optional field", () => {
    const agent = parseIdentity(FILE, identity(["name: demo"]));
    expect(agent).toMatchObject({
      version: "1.0.0",
      model: "claude-sonnet-4-6",
      maxTurns: 500,
      maxTokens: 8192,
      thinking: null,
      effort: null,
      tools: { allow: null, deny: [] },
      tags: [],
      icon: null,
      starters: [],
    });
  });

  it("tags the skills of an agent without tags with its name (A2A requires a skill's tags)", () => {
    const agent = parseIdentity(FILE, identity(["name: demo"], "You help.\n\n## Review\nReviews."));
    expect(agent.skills.map((s) => s.tags)).toEqual([["demo"]]);
  });

  it("maps thinking: true to a 4096-token budget and thinking: false to null", () => {
    expect(parseIdentity(FILE, identity(["name: demo", "thinking: true"])).thinking).toEqual({
      budgetTokens: 4096,
    });
    expect(parseIdentity(FILE, identity(["name: demo", "thinking: false"])).thinking).toBeNull();
  });

  it("accepts an emoji icon, including multi-codepoint ones", () => {
    for (const icon of ["🔎", "✍️", "👩‍💻", "🇧🇷"]) {
      expect(parseIdentity(FILE, identity(["name: demo", `icon: "${icon}"`])).icon).toBe(icon);
    }
  });

  it("takes the description from the first paragraph, stripped of markdown", () => {
    const body = [
      "# Demo",
      "",
      "You are **demo**, a _careful_ helper that reads",
      "[the docs](https://example.com) and `code`.",
      "",
      "Second paragraph.",
    ].join("\n");
    const agent = parseIdentity(FILE, identity(["name: demo"], body));
    expect(agent.description).toBe("You are demo, a careful helper that reads the docs and code.");
  });

  it("clips a long first paragraph to 1000 characters", () => {
    const agent = parseIdentity(FILE, identity(["name: demo"], "word ".repeat(400)));
    expect(agent.description.length).toBe(1000);
    expect(agent.description.endsWith("…")).toBe(true);
  });

  it("accepts CRLF line endings and a byte-order mark", () => {
    const text = `\uFEFF${identity(["name: demo", "maxTurns: 7"], "Line one.\r\nLine two.")}`;
    const agent = parseIdentity(FILE, text.replace(/\r?\n/g, "\r\n"));
    expect(agent.name).toBe("demo");
    expect(agent.maxTurns).toBe(7);
    expect(agent.systemPrompt).toBe("Line one.\nLine two.");
    expect(agent.description).toBe("Line one. Line two.");
  });
});

describe("parseIdentity: programs, message ids and media types", () => {
  it("defaults to a model-driven agent that deduplicates messageIds and takes the harness's modes", () => {
    const agent = parseIdentity(FILE, identity(["name: demo"]));
    expect(agent).toMatchObject({
      program: null,
      dedupeMessages: true,
      inputModes: null,
      outputModes: null,
    });
  });

  it("reads program, dedupeMessages and media type lists", () => {
    const agent = parseIdentity(
      FILE,
      identity([
        "name: demo",
        "program: conformance",
        "dedupeMessages: false",
        'inputModes: ["*/*"]',
        "outputModes: [text/plain, application/json, image/*]",
      ]),
    );
    expect(agent).toMatchObject({
      program: "conformance",
      dedupeMessages: false,
      inputModes: ["*/*"],
      outputModes: ["text/plain", "application/json", "image/*"],
    });
  });

  it("refuses a media type that is not one, naming the field", () => {
    expect(errorOf(identity(["name: demo", "inputModes: [text]"])).message).toBe(
      `${FILE}:3:14: frontmatter.inputModes.0: expected media types such as text/plain, image/* or */*`,
    );
    expect(errorOf(identity(["name: demo", "dedupeMessages: maybe"])).message).toBe(
      `${FILE}:3:17: frontmatter.dedupeMessages: expected true or false`,
    );
  });
});

describe("parseIdentity: errors", () => {
  it("rejects a file without frontmatter", () => {
    const error = errorOf("You are demo.");
    expect(error.file).toBe(FILE);
    expect(error.field).toBe("frontmatter");
    expect(error.message).toMatch(/^agents\/demo\/IDENTITY\.md:1:1: frontmatter: missing/);
  });

  it("rejects frontmatter that is never closed", () => {
    const error = errorOf("---\nname: demo\nYou are demo.");
    expect(error.message).toBe(
      `${FILE}:1:1: frontmatter: not closed; add a '---' line after the YAML`,
    );
  });

  it("reports a YAML syntax error with its line in the file", () => {
    const error = errorOf(identity(["name: demo", "tags: [a, b"]));
    expect(error.field).toBeNull();
    expect(error.message).toMatch(
      /^agents\/demo\/IDENTITY\.md:3:\d+: invalid YAML in frontmatter: /,
    );
    expect(error.position?.line).toBe(3);
  });

  it("reports duplicate YAML keys", () => {
    const error = errorOf(identity(["name: demo", "name: other"]));
    expect(error.field).toBeNull();
    expect(error.message).toBe(`${FILE}:3:1: invalid YAML in frontmatter: Map keys must be unique`);
  });

  it("rejects frontmatter that is not a mapping", () => {
    const error = errorOf(identity(["- name: demo"]));
    expect(error.field).toBe("frontmatter");
    expect(error.message).toBe(
      `${FILE}:2:1: frontmatter: expected a YAML mapping of keys to values`,
    );
  });

  it("requires a name", () => {
    const error = errorOf(identity(["maxTurns: 3"]));
    expect(error.field).toBe("frontmatter.name");
    expect(error.message).toContain(`${FILE}:2:1: frontmatter.name: is required`);
  });

  it("rejects an unknown key and suggests the camelCase spelling", () => {
    const error = errorOf(identity(["name: demo", "max_turns: 3"]));
    expect(error.field).toBe("frontmatter.max_turns");
    expect(error.message).toBe(
      `${FILE}:3:1: frontmatter.max_turns: unknown key (did you mean maxTurns?)`,
    );
  });

  it("rejects an unknown nested key with its path", () => {
    const error = errorOf(identity(["name: demo", "tools:", "  only: [read_file]"]));
    expect(error.field).toBe("frontmatter.tools.only");
    expect(error.message).toContain("known keys: allow, deny");
  });

  it("reports a wrong type with the full field path", () => {
    const error = errorOf(identity(["name: demo", "tools:", "  deny: [42]"]));
    expect(error.field).toBe("frontmatter.tools.deny.0");
    expect(error.message).toMatch(
      /^agents\/demo\/IDENTITY\.md:4:10: frontmatter\.tools\.deny\.0: /,
    );
  });

  it("reports an out-of-range integer with a human reason", () => {
    const error = errorOf(identity(["name: demo", "maxTurns: 501"]));
    expect(error.message).toBe(
      `${FILE}:3:11: frontmatter.maxTurns: expected an integer between 1 and 500`,
    );
    expect(errorOf(identity(["name: demo", "maxTurns: 2.5"])).field).toBe("frontmatter.maxTurns");
  });

  it("reads run_code's code settings and checks them", () => {
    const agent = parseIdentity(
      FILE,
      identity(["name: demo", "code: { cpuMs: 2000, timeoutMs: 20000, bindings: [DB] }"]),
    );
    expect(agent.code).toEqual({ bindings: ["DB"], cpuMs: 2000, timeoutMs: 20000 });
    expect(parseIdentity(FILE, identity(["name: demo"])).code).toEqual({
      bindings: [],
      cpuMs: null,
      timeoutMs: null,
    });
    expect(errorOf(identity(["name: demo", "code: { bindings: [db] }"])).field).toBe(
      "frontmatter.code.bindings.0",
    );
    expect(errorOf(identity(["name: demo", "code: { cpuMs: 0 }"])).field).toBe(
      "frontmatter.code.cpuMs",
    );
  });

  it("reports the first issue when there are several", () => {
    const error = errorOf(identity(["name: Demo", "maxTurns: 0"]));
    expect(error.field).toBe("frontmatter.name");
  });

  it("rejects a thinking budget that is not below maxTokens", () => {
    const explicit = errorOf(
      identity(["name: demo", "maxTokens: 4096", "thinking:", "  budgetTokens: 4096"]),
    );
    expect(explicit.field).toBe("frontmatter.thinking.budgetTokens");
    expect(explicit.message).toContain("must be less than maxTokens (4096)");
    const implicit = errorOf(identity(["name: demo", "maxTokens: 4000", "thinking: true"]));
    expect(implicit.field).toBe("frontmatter.thinking");
    expect(implicit.message).toContain("thinking budget (4096 tokens)");
  });

  it("rejects a thinking budget under 1024 and other thinking shapes", () => {
    expect(errorOf(identity(["name: demo", "thinking: { budgetTokens: 512 }"])).field).toBe(
      "frontmatter.thinking.budgetTokens",
    );
    expect(errorOf(identity(["name: demo", "thinking: lots"])).field).toBe("frontmatter.thinking");
  });

  it.each([
    ["icon: http://example.com/a.png", "frontmatter.icon"],
    ["icon: robot", "frontmatter.icon"],
    ["effort: maximal", "frontmatter.effort"],
    ["version: 1.0", "frontmatter.version"],
    [`starters: [${"s, ".repeat(8)}s]`, "frontmatter.starters"],
  ])("rejects a bad icon, effort, version or too many starters: %s", (line, field) => {
    expect(errorOf(identity(["name: demo", line])).field).toBe(field);
  });

  it("reports unknown tool names in tools with their position; domains and MCP tools are known", () => {
    const deny = errorOf(identity(["name: demo", "tools:", "  deny: [write_file, wrte_file]"]));
    expect(deny.field).toBe("frontmatter.tools.deny.1");
    expect(deny.message).toMatch(
      /^agents\/demo\/IDENTITY\.md:4:22: frontmatter\.tools\.deny\.1: unknown tool "wrte_file"; tools: read_file, /,
    );
    expect(errorOf(identity(["name: demo", "tools: { allow: [workspce] }"])).field).toBe(
      "frontmatter.tools.allow.0",
    );
    expect(
      errorOf(identity(["name: demo", "tools: { requireApproval: [rm_rf] }"])).message,
    ).toContain('unknown tool "rm_rf"');
    const fine = parseIdentity(
      FILE,
      identity([
        "name: demo",
        "tools: { allow: [workspace, web_fetch, docs__search, mcp], requireApproval: [docs__lookup] }",
        "mcp: [{ name: docs, url: 'https://docs.example.com/mcp' }]",
      ]),
    );
    expect(fine.tools.allow).toEqual(["workspace", "web_fetch", "docs__search", "mcp"]);
    expect(
      errorOf(identity(["name: demo", "tools: { allow: [other__search] }"])).message,
    ).toContain('unknown tool "other__search"');
  });

  it("rejects an empty body", () => {
    const error = errorOf("---\nname: demo\n---\n\n  \n");
    expect(error.field).toBe("body");
    expect(error.message).toBe(
      `${FILE}:4:1: body: the system prompt after the frontmatter is empty`,
    );
  });
});

describe("parseIdentity: skills", () => {
  const fm = ["name: demo", "tags: [t1]", "starters: [Try me]"];

  it("reads each ### heading of a ## Skills section", () => {
    const body = [
      "You are demo.",
      "## Principles",
      "Be brief.",
      "## SKILLS",
      "### Summarise *files*",
      "Reads files and",
      "summarises them.",
      "",
      "- with citations",
      "### Compare options",
      "Weighs trade-offs.",
      "## Output",
      "Short.",
    ].join("\n");
    const agent = parseIdentity(FILE, identity(fm, body));
    expect(agent.skills).toEqual([
      {
        id: "summarise-files",
        name: "Summarise files",
        description: "Reads files and summarises them. with citations",
        tags: ["t1"],
        examples: ["Try me"],
      },
      {
        id: "compare-options",
        name: "Compare options",
        description: "Weighs trade-offs.",
        tags: ["t1"],
        examples: [],
      },
    ]);
  });

  it("reads top-level bullets of a ## Skills section without ### headings", () => {
    const body = `You are demo.
## Skills
- **Search**: finds things
  across the workspace.
- **Fetch:** reads web pages
- Summarise — condenses text
- Plan: breaks work down
  - nested detail
- not a skill line`;
    const skills = parseIdentity(FILE, identity(fm, body)).skills;
    expect(skills.map((s) => [s.id, s.name, s.description])).toEqual([
      ["search", "Search", "finds things across the workspace."],
      ["fetch", "Fetch", "reads web pages"],
      ["summarise", "Summarise", "condenses text"],
      ["plan", "Plan", "breaks work down nested detail"],
    ]);
    expect(skills.map((s) => s.examples)).toEqual([["Try me"], [], [], []]);
  });

  it("uses every ## section when there is no ## Skills section", () => {
    const body = [
      "You are demo.",
      "## How you *work*",
      "",
      "Step by step.",
      "",
      "Then check.",
      "## Principles",
      "### Sub",
      "Be honest.",
      "```md",
      "## Not a heading",
      "```",
    ].join("\n");
    const skills = parseIdentity(FILE, identity(fm, body)).skills;
    expect(skills.map((s) => [s.id, s.name, s.description])).toEqual([
      ["how-you-work", "How you work", "Step by step."],
      ["principles", "Principles", "Be honest."],
    ]);
  });

  it("falls back to one skill named after the agent", () => {
    const agent = parseIdentity(
      FILE,
      identity([...fm, "description: Does demo things."], "# Demo\n\nYou are demo."),
    );
    expect(agent.skills).toEqual([
      {
        id: "demo",
        name: "demo",
        description: "Does demo things.",
        tags: ["t1"],
        examples: ["Try me"],
      },
    ]);
  });

  it("makes skill ids unique with -2, -3 suffixes", () => {
    const body = ["## Skills", "### Écrire!", "a", "### ecrire", "b", "### ÉCRIRE", "c"].join("\n");
    const ids = parseIdentity(FILE, identity(fm, body)).skills.map((s) => s.id);
    expect(ids).toEqual(["ecrire", "ecrire-2", "ecrire-3"]);
  });
});

describe("parseIdentity: extendedSkills", () => {
  it("reads the extended card's skills, with ids from their names unless given", () => {
    const agent = parseIdentity(
      FILE,
      identity([
        "name: demo",
        "extendedSkills:",
        "  - { name: Billing Reports, description: Reads invoices., tags: [billing] }",
        "  - { id: audit, name: Audit, description: Checks the books., examples: [Audit May] }",
      ]),
    );
    expect(agent.extendedSkills).toEqual([
      {
        id: "billing-reports",
        name: "Billing Reports",
        description: "Reads invoices.",
        tags: ["billing"],
        examples: [],
      },
      {
        id: "audit",
        name: "Audit",
        description: "Checks the books.",
        tags: [],
        examples: ["Audit May"],
      },
    ]);
    expect(parseIdentity(FILE, identity(["name: demo"])).extendedSkills).toEqual([]);
  });

  it("names the field of a malformed extended skill", () => {
    const error = errorOf(
      identity(["name: demo", "extendedSkills:", "  - { name: No description }"]),
    );
    expect(error.message).toContain("extendedSkills");
  });
});

describe("AgentRegistry", () => {
  it("parses the four shipped model agents with their limits and skills", () => {
    const registry = bundledAgents();
    // Agents a user adds come beside the shipped ones.
    const shipped = ["assistant", "conformance", "deep-thinker", "researcher", "writer"];
    expect(registry.names()).toEqual(expect.arrayContaining(shipped));
    const models = registry.list().filter((a) => shipped.includes(a.name) && a.program === null);
    const turns = Object.fromEntries(models.map((a) => [a.name, a.maxTurns]));
    expect(turns).toEqual({ assistant: 500, "deep-thinker": 15, researcher: 30, writer: 20 });
    for (const agent of models) {
      expect(agent.file).toBe(`agents/${agent.name}/IDENTITY.md`);
      expect(agent.skills.length).toBeGreaterThanOrEqual(3);
      expect(agent.skills[0]?.examples).toEqual(agent.starters);
      expect(agent.starters.length).toBeGreaterThanOrEqual(3);
    }
    expect(registry.get("deep-thinker")?.thinking).toEqual({ budgetTokens: 8000 });
    expect(registry.get("deep-thinker")?.effort).toBe("high");
    expect(registry.get("researcher")?.tools.deny).toEqual([
      "write_file",
      "edit_file",
      "checkpoint_create",
      "checkpoint_restore",
      "progress_update",
      "feature_update",
      "state_restore",
      "memory_write",
      // Read-only: no run_code, which its file does not grant (tool-grants.ts).
      "run_code",
    ]);
    expect(registry.get("deep-thinker")?.tools.deny).toContain("run_code");
    expect(registry.get("writer")?.tools.deny).toEqual([]);
    expect(bundledAgents()).toBe(registry);
  });

  it("tells the researcher how many documents to read and to stop at a cap message", () => {
    const prompt = bundledAgents().get("researcher")?.systemPrompt ?? "";
    expect(prompt).toContain("Read the 3-5 most relevant documents");
    expect(prompt).toContain(
      "When a tool answers that it has reached its limit, do not call it again",
    );
  });

  it("looks agents up by name and lists them sorted", () => {
    const registry = new AgentRegistry([
      { file: "agents/zed/IDENTITY.md", text: identity(["name: zed"]) },
      { file: "agents/amy/IDENTITY.md", text: identity(["name: amy"]) },
    ]);
    expect(registry.names()).toEqual(["amy", "zed"]);
    expect(registry.list().map((a) => a.file)).toEqual([
      "agents/amy/IDENTITY.md",
      "agents/zed/IDENTITY.md",
    ]);
    expect(registry.has("amy")).toBe(true);
    expect(registry.has("bob")).toBe(false);
    expect(registry.get("zed")?.name).toBe("zed");
    expect(registry.get("constructor")).toBeUndefined();
  });

  it("keeps an invalid entry (or a second one of a name) as broken; the others are served", () => {
    const registry = new AgentRegistry([
      { file: "agents/ok/IDENTITY.md", text: identity(["name: ok"]) },
      { file: "agents/bad/IDENTITY.md", text: identity(["name: bad", "maxTurns: 0"]) },
      { file: "one.md", text: identity(["name: same"]) },
      { file: "two.md", text: identity(["name: same"]) },
    ]);
    expect(registry.names()).toEqual(["ok", "same"]);
    expect(registry.broken("bad")?.message).toBe(
      "agents/bad/IDENTITY.md:3:11: frontmatter.maxTurns: expected an integer between 1 and 500",
    );
    expect(registry.broken("two.md")?.message).toBe(
      'two.md: frontmatter.name: "same" is already defined by one.md',
    );
    expect(registry.broken("ok")).toBeUndefined();
    expect(registry.brokenList().map((b) => b.name)).toEqual(["bad", "two.md"]);
  });
});
