/**
 * What an agent's folder adds to its IDENTITY.md (src/agents/identity.ts, entry-parse.ts): the
 * grants of `tools.secrets` / `tools.bindings`, the names of its tools in code in its tool lists,
 * its skills on its card; and what keeps it from being served: a tool the build could not bundle
 * (its own, or a shared one it is given), a broken skill, a shared skill (not for a program).
 */
import { describe, expect, it } from "vitest";
import { parseEntry, parseShared } from "../../../src/agents/entry-parse.ts";
import { parseIdentity } from "../../../src/agents/identity.ts";
import { unavailableReason } from "../../../src/agents/identity-error.ts";
import { AgentRegistry } from "../../../src/agents/registry.ts";
import { parseSkill } from "../../../src/agents/skill-folders.ts";
import { customToolNameProblem } from "../../../src/agents/tool-names.ts";
import { identityErrorOf, identityText } from "../../helpers/identities.ts";

const FILE = "agents/orders/IDENTITY.md";
const orders = (frontmatter: string[], body = "You answer questions about orders.") =>
  identityText(["name: orders", ...frontmatter], body);
const skillSource = (name: string, folder = `agents/orders/skills/${name}`) => ({
  file: `${folder}/SKILL.md`,
  text: `---\nname: ${name}\ndescription: The ${name} skill. Use it for ${name}.\n---\nStep one of ${name}.\n`,
  files: [],
});

/** The error message parsing `text` with `tools` throws. */
function errorWith(text: string, tools: string[]): string {
  try {
    parseIdentity(FILE, text, { tools });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("expected parseIdentity to throw");
}

describe("an agent's tools in code in its IDENTITY.md", () => {
  it("grants them secrets and bindings by name", () => {
    const agent = parseIdentity(
      FILE,
      orders(["tools:", "  secrets: [ORDERS_API_KEY, ORDERS_API_URL]", "  bindings: [DB]"]),
      { tools: ["lookup"] },
    );
    expect(agent.tools).toMatchObject({
      secrets: ["ORDERS_API_KEY", "ORDERS_API_URL"],
      bindings: ["DB"],
    });
    expect(agent.customTools).toEqual(["lookup"]);
    expect(parseIdentity(FILE, orders([])).tools).toMatchObject({ secrets: [], bindings: [] });
  });

  it("refuses a grant that is not an upper-case name, and says the known keys of tools", () => {
    expect(identityErrorOf(FILE, orders(["tools:", "  secrets: [api-key]"])).message).toBe(
      `${FILE}:4:13: frontmatter.tools.secrets.0: expected the name of a secret (upper case letters, digits, '_')`,
    );
    expect(identityErrorOf(FILE, orders(["tools:", "  secret: [KEY]"])).message).toBe(
      `${FILE}:4:3: frontmatter.tools.secret: unknown key; known keys: allow, deny, requireApproval, secrets, bindings`,
    );
  });

  it("lets allow, deny and requireApproval name them (or the custom domain); others stay errors", () => {
    const agent = parseIdentity(
      FILE,
      orders(["tools:", "  allow: [lookup, custom, read_file]", "  requireApproval: [lookup]"]),
      { tools: ["lookup"] },
    );
    expect(agent.tools.requireApproval).toEqual(["lookup"]);
    expect(errorWith(orders(["tools:", "  deny: [lookups]"]), ["lookup"])).toMatch(
      /^agents\/orders\/IDENTITY\.md:4:10: frontmatter\.tools\.deny\.0: unknown tool "lookups"; tools: .*; the agent's tools in code: lookup$/,
    );
    expect(errorWith(orders(["tools:", "  deny: [lookup]"]), [])).toContain(
      'unknown tool "lookup"',
    );
  });

  it("takes tool names that are no harness tool, domain or MCP name", () => {
    expect(customToolNameProblem("lookup_order")).toBeNull();
    expect(customToolNameProblem("order-status")).toBeNull();
    for (const name of ["read_file", "workspace", "tool_search", "skill_load", "custom"])
      expect(customToolNameProblem(name)).toContain("is the harness's own");
    expect(customToolNameProblem("crm__find")).toContain("'__'");
    expect(customToolNameProblem("LookUp")).toContain("a tool name is");
  });
});

describe("an agent's skills", () => {
  it("join its card after the body's skills, with no skill for the agent itself", () => {
    const refunds = parseSkill(skillSource("refunds"));
    const withSection = parseIdentity(
      FILE,
      orders(
        ["tags: [orders]"],
        "You help.\n\n## Skills\n\n### Tracking\nFinds where an order is.",
      ),
      { skills: [refunds] },
    );
    expect(withSection.skills.map((s) => [s.id, s.name, s.tags])).toEqual([
      ["tracking", "Tracking", ["orders"]],
      ["refunds", "refunds", ["orders"]],
    ]);
    expect(withSection.skills[1]?.description).toBe("The refunds skill. Use it for refunds.");
    expect(withSection.skillFolders).toEqual([refunds]);
    // Without body skills, the card's only skill is the agent itself; with a skill, not.
    expect(parseIdentity(FILE, orders([])).skills.map((s) => s.name)).toEqual(["orders"]);
    expect(
      parseIdentity(FILE, orders([]), { skills: [refunds] }).skills.map((s) => s.name),
    ).toEqual(["refunds"]);
  });

  it("are none for an agent of a program, nor its tools in code", () => {
    const agent = parseIdentity(
      "agents/conformance/IDENTITY.md",
      identityText(["name: conformance", "program: conformance"], "Conformance."),
      { tools: ["lookup"], skills: [parseSkill(skillSource("refunds"))] },
    );
    expect(agent).toMatchObject({ customTools: [], skillFolders: [] });
  });
});

describe("what keeps an agent from being served", () => {
  const sharedSkill = skillSource("tone", "shared/skills/tone");
  const entry = (frontmatter: string[] = [], extra: object = {}) => ({
    file: FILE,
    text: orders(frontmatter),
    tools: ["lookup"],
    skills: [skillSource("refunds")],
    ...extra,
  });
  const none = parseShared({ tools: [], skills: [] });

  it("parses an entry with its own and the shared tools and skills; its own shadow the shared", () => {
    const shared = parseShared({
      tools: [
        { name: "clock", file: "shared/tools/clock.ts" },
        { name: "lookup", file: "shared/tools/lookup.ts" },
      ],
      skills: [sharedSkill, skillSource("refunds", "shared/skills/refunds")],
    });
    const agent = parseEntry(entry(), shared);
    expect(agent.customTools).toEqual(["lookup", "clock"]);
    expect(agent.skillFolders.map((s) => s.file)).toEqual([
      "agents/orders/skills/refunds/SKILL.md",
      "shared/skills/tone/SKILL.md",
    ]);
  });

  it("is a tool of its own the build could not bundle, at its file and line", () => {
    const problem = {
      file: "agents/orders/tools/lookup.ts",
      line: 9,
      column: 11,
      reason: "TS2322: Type 'string' is not assignable to type 'number'.",
    };
    const registry = new AgentRegistry([entry([], { problem })]);
    const error = registry.broken("orders");
    expect(error?.message).toBe(
      "agents/orders/tools/lookup.ts:9:11: TS2322: Type 'string' is not assignable to type 'number'.",
    );
    expect(error && unavailableReason(error)).toMatch(/^one of its tools is invalid: agents\//);
  });

  it("is a broken shared tool only for the agents given it", () => {
    const shared = {
      tools: [
        {
          name: "clock",
          file: "shared/tools/clock.ts",
          problem: { file: "shared/tools/clock.ts", reason: "TS1005: ';' expected." },
        },
      ],
      skills: [],
    };
    const registry = new AgentRegistry(
      [
        { file: FILE, text: orders([]) },
        {
          file: "agents/plain/IDENTITY.md",
          text: identityText(["name: plain", "tools:", "  deny: [custom]"], "You help."),
        },
        {
          file: "agents/reader/IDENTITY.md",
          text: identityText(["name: reader", "tools:", "  allow: [read_file]"], "You read."),
        },
      ],
      shared,
    );
    expect(registry.names()).toEqual(["plain", "reader"]);
    expect(registry.brokenList()).toEqual([
      { name: "orders", error: "shared/tools/clock.ts: TS1005: ';' expected." },
    ]);
  });

  it("is a broken skill of its own or a broken shared one, not for an agent of a program", () => {
    const broken = {
      ...skillSource("refunds"),
      text: "---\nname: refunds\n---\nNo description.\n",
    };
    const registry = new AgentRegistry([entry([], { skills: [broken] })]);
    expect(registry.broken("orders")?.message).toMatch(
      /^agents\/orders\/skills\/refunds\/SKILL\.md:2:1: frontmatter\.description: /,
    );
    const badShared = { tools: [], skills: [{ ...sharedSkill, text: "no frontmatter" }] };
    const program = {
      file: "agents/conformance/IDENTITY.md",
      text: identityText(["name: conformance", "program: conformance"], "Conformance."),
    };
    const both = new AgentRegistry([entry(), program], badShared);
    expect(both.names()).toEqual(["conformance"]);
    const error = both.broken("orders");
    expect(error?.message).toMatch(/^shared\/skills\/tone\/SKILL\.md:1:1: /);
    expect(error && unavailableReason(error)).toMatch(/^one of its skills is invalid: /);
    expect(parseEntry(entry(), none).name).toBe("orders");
  });
});
