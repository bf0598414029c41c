/**
 * The agents' bundle (scripts/agent-bundle.ts, agent-sources.ts) built from a project's folders,
 * in Node without a server: every agent's IDENTITY.md with the names of its tools in code and its
 * skills' files, the shared ones, an import of every tool module; strict, an invalid tool name or
 * skill stops the build with its file; lenient (npm run dev), a tool with a type error keeps only
 * its agent (or, shared, the agents given it) offline and out of the imports.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeAgentBundle } from "../../scripts/agent-bundle.ts";
import { tempDir } from "./processes.ts";

const TOOL = (name: string) =>
  `import { defineAgentTool } from "#harness/tool";\nimport { z } from "zod";\nexport default defineAgentTool({ name: "${name}", description: "d", input: z.strictObject({}), run: () => "ok" });\n`;
const SKILL = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name}.\n`;

/** A project of `files` (path -> text, or bytes) with the directory the bundle is written to. */
function project(files: Record<string, string | Uint8Array>): string {
  const root = tempDir("a2a-bundle-");
  mkdirSync(join(root, "src", "agents"), { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const identity = (name: string, extra = "") =>
  `---\nname: ${name}\n${extra}---\nYou are ${name}.\n`;
const generated = (root: string, file: string) =>
  readFileSync(join(root, "src", "agents", file), "utf8");

describe("the agents' bundle", () => {
  it("holds each agent's identity, tool names and skills, the shared ones, and imports every tool", () => {
    const root = project({
      "agents/orders/IDENTITY.md": identity("orders", "tools:\n  allow: [lookup, clock]\n"),
      "agents/orders/tools/lookup.ts": TOOL("lookup"),
      "agents/orders/tools/lookup.d.ts": "export {};\n",
      "agents/orders/tools/lib/api.ts": "export const api = 1;\n",
      "agents/orders/skills/refunds/SKILL.md": SKILL("refunds"),
      "agents/orders/skills/refunds/references/policy.md": "30 days.",
      "agents/orders/skills/refunds/assets/logo.png": new Uint8Array([0x89, 0x50, 0, 0xff]),
      "agents/orders/skills/notes/README.md": "not a skill: no SKILL.md",
      "agents/plain/IDENTITY.md": identity("plain"),
      "shared/tools/clock.ts": TOOL("clock"),
      "shared/skills/tone/SKILL.md": SKILL("tone"),
    });
    expect(writeAgentBundle(root, { lenient: false })).toEqual({
      names: ["orders", "plain"],
      broken: new Map(),
      warnings: [],
    });
    const data = generated(root, "bundled.generated.ts");
    expect(data).toContain('"tools": [\n      "lookup"\n    ]');
    expect(data).toContain('"file": "agents/orders/skills/refunds/SKILL.md"');
    expect(data).toContain(
      '"path": "assets/logo.png",\n            "text": null,\n            "bytes": 4',
    );
    expect(data).toContain('"path": "references/policy.md",\n            "text": "30 days.",');
    expect(data).toContain('"file": "shared/skills/tone/SKILL.md"');
    expect(data).not.toContain("notes");
    expect(generated(root, "tools.generated.ts")).toContain(
      [
        'import * as tool0 from "../../agents/orders/tools/lookup.ts";',
        'import * as tool1 from "../../shared/tools/clock.ts";',
      ].join("\n"),
    );
    expect(generated(root, "tools.generated.ts")).not.toContain("lib/api");
  });

  it("stops, strict, at a tool named as a harness tool or an invalid skill, naming its file", () => {
    const named = project({
      "agents/orders/IDENTITY.md": identity("orders"),
      "agents/orders/tools/read_file.ts": TOOL("read_file"),
    });
    expect(() => writeAgentBundle(named, { lenient: false })).toThrow(
      `agents/orders/tools/read_file.ts: the file's name: "read_file" is the harness's own; choose another name`,
    );
    const skill = project({
      "agents/orders/IDENTITY.md": identity("orders"),
      "agents/orders/skills/refunds/SKILL.md": SKILL("returns"),
    });
    expect(() => writeAgentBundle(skill, { lenient: false })).toThrow(
      'agents/orders/skills/refunds/SKILL.md:2:7: frontmatter.name: "returns" must equal the folder name "refunds"',
    );
    const missing = project({ "agents/orders/tools/lookup.ts": TOOL("lookup") });
    expect(() => writeAgentBundle(missing, { lenient: true })).toThrow(
      "agents/orders/IDENTITY.md: not found",
    );
  });

  it("keeps, lenient, only the agent of a broken tool (or the agents given a broken shared one) offline and its tools out", () => {
    const root = project({
      "agents/orders/IDENTITY.md": identity("orders"),
      "agents/orders/tools/lookup.ts": TOOL("lookup"),
      "agents/billing/IDENTITY.md": identity("billing"),
      "agents/billing/tools/invoice.ts": TOOL("invoice"),
      "agents/reader/IDENTITY.md": identity("reader", "tools:\n  deny: [custom]\n"),
      "shared/tools/clock.ts": TOOL("clock"),
    });
    const problems = new Map([
      [
        "agents/orders/tools/lookup.ts",
        { file: "agents/orders/tools/lookup.ts", line: 3, column: 9, reason: "TS2322: nope" },
      ],
    ]);
    const first = writeAgentBundle(root, { lenient: true, problems });
    expect(first.broken).toEqual(
      new Map([["orders", "agents/orders/tools/lookup.ts:3:9: TS2322: nope"]]),
    );
    const tools = generated(root, "tools.generated.ts");
    expect(tools).toContain("agents/billing/tools/invoice.ts");
    expect(tools).not.toContain("agents/orders/tools/lookup.ts");
    expect(generated(root, "bundled.generated.ts")).toContain('"reason": "TS2322: nope"');

    const shared = new Map([
      [
        "shared/tools/clock.ts",
        { file: "shared/tools/clock.ts", line: 1, reason: "TS1005: ';' expected." },
      ],
    ]);
    const second = writeAgentBundle(root, { lenient: true, problems: shared });
    expect([...second.broken.keys()]).toEqual(["billing", "orders"]);
    expect(generated(root, "tools.generated.ts")).not.toContain("shared/tools/clock.ts");
    expect(() => writeAgentBundle(root, { lenient: false, problems })).toThrow(
      "agents/orders/tools/lookup.ts:3:9: TS2322: nope",
    );
  });

  it("warns of a model that is likely a typo, at its line, and bundles the agent", () => {
    const root = project({
      "agents/orders/IDENTITY.md": identity("orders", "model: claude-sonet-4-6\n"),
    });
    const built = writeAgentBundle(root, { lenient: false });
    expect(built.names).toEqual(["orders"]);
    expect(built.warnings).toEqual([
      expect.stringMatching(
        /^agents\/orders\/IDENTITY\.md:3:8: warning: frontmatter\.model: "claude-sonet-4-6" is not a model/,
      ),
    ]);
  });
});
