/**
 * Agent Skills loaded on demand (src/tools/skills/, src/loop/prompt/skills.ts): the system
 * prompt lists each skill's name and description and never its instructions; skill_load gives
 * the instructions (in pages that fit a tool result) with the files beside them listed, and
 * skill_read one file; the output compaction leaves both whole.
 */
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../../../src/agents/identity.ts";
import { parseSkill, type SkillFileSource } from "../../../../src/agents/skill-folders.ts";
import { loadConfig } from "../../../../src/config/config.ts";
import { outputCompactionHook } from "../../../../src/hooks/output-limits.ts";
import { systemPrompt } from "../../../../src/loop/prompt/prompt.ts";
import { skillsSection } from "../../../../src/loop/prompt/skills.ts";
import { toolsFor } from "../../../../src/tools/catalog.ts";
import { skillLoadTool } from "../../../../src/tools/skills/skill-load.ts";
import { skillReadTool } from "../../../../src/tools/skills/skill-read.ts";
import { hookContext } from "../../../helpers/hook-context.ts";
import { toolContext } from "../../../helpers/tool-context.ts";

const BODY = Array.from({ length: 80 }, (_, i) => `${i + 1}. Step ${i + 1} of a refund.`).join(
  "\n",
);
const refunds = parseSkill({
  file: "agents/orders/skills/refunds/SKILL.md",
  text: `---\nname: refunds\ndescription: Handles refunds <fast> & right. Use it for money back.\n---\n${BODY}\n`,
  files: [
    { path: "references/policy.md", text: "Refunds within 30 days.", bytes: 23 },
    { path: "assets/form.pdf", text: null, bytes: 4096 },
  ] satisfies SkillFileSource[],
});
const agent = parseIdentity(
  "agents/orders/IDENTITY.md",
  "---\nname: orders\n---\nYou answer about orders.\n",
  { skills: [refunds] },
);
const ctx = (maxToolOutputChars = 10_000) =>
  toolContext({ skills: [refunds], config: { ...loadConfig({}), maxToolOutputChars } });

describe("the system prompt", () => {
  it("lists each skill's name and description and how to load it, not its instructions", () => {
    const tools = ["read_file", "skill_load", "skill_read"];
    const [stable] = systemPrompt({
      agent,
      tools,
      memory: { shared: null, user: null },
      environment: null,
      now: new Date(),
      timeZone: "UTC",
    });
    expect(stable?.text).toContain("## Your skills");
    expect(stable?.text).toContain(
      "<skill><name>refunds</name><description>Handles refunds &lt;fast&gt; &amp; right. Use it for money back.</description></skill>",
    );
    expect(stable?.text).toContain("load it with skill_load");
    expect(stable?.text).not.toContain("Step 1 of a refund");
    expect(skillsSection(agent.skillFolders, ["read_file"])).toEqual([]);
    expect(skillsSection([], tools)).toEqual([]);
  });

  it("is offered the skill tools only for an agent with skills", () => {
    const plain = parseIdentity("agents/p/IDENTITY.md", "---\nname: p\n---\nHi.\n");
    expect(toolsFor(agent, loadConfig({})).names()).toEqual(
      expect.arrayContaining(["skill_load", "skill_read"]),
    );
    expect(toolsFor(plain, loadConfig({})).names()).not.toContain("skill_load");
  });
});

describe("skill_load", () => {
  it("gives the instructions, wrapped, with the files beside them listed and not read", async () => {
    const result = await skillLoadTool.run({ name: "refunds" }, ctx());
    expect(result.isError).toBeFalsy();
    expect(result.content.startsWith(`<skill_content name="refunds">\n${BODY}\n`)).toBe(true);
    expect(result.content).toContain(
      "<skill_resources>\n<file>assets/form.pdf</file>\n<file>references/policy.md</file>\n</skill_resources>\n</skill_content>",
    );
    expect(result.content).not.toContain("Refunds within 30 days");
  });

  it("gives long instructions in pages that fit a tool result, each saying how to read on", async () => {
    const first = await skillLoadTool.run({ name: "refunds" }, ctx(1_200));
    expect(first.content.length).toBeLessThanOrEqual(1_200);
    const more = /call skill_load with (\{.*\}) to read on/.exec(first.content);
    expect(more?.[1]).toBeDefined();
    const next = JSON.parse(more?.[1] ?? "{}") as { name: string; offset: number };
    expect(next.name).toBe("refunds");
    const second = await skillLoadTool.run(next, ctx(1_200));
    const page = (content: string) =>
      content.slice(content.indexOf("\n") + 1, content.indexOf("\n[more:"));
    expect(BODY.startsWith(page(first.content) + page(second.content))).toBe(true);
    expect(page(first.content).endsWith("\n")).toBe(true);
  });

  it("names the skills there are for an unknown name", async () => {
    expect(await skillLoadTool.run({ name: "returns" }, ctx())).toEqual({
      content: 'No skill named "returns". Your skills: refunds.',
      isError: true,
    });
    expect((await skillLoadTool.run({ name: "refunds" }, toolContext())).content).toContain(
      "Your skills: none",
    );
  });

  it("is not compacted: instructions reach the model whole", async () => {
    const result = await skillLoadTool.run({ name: "refunds" }, ctx());
    const { ctx: hooks } = hookContext({ COMPACT_OUTPUT_LINES: "50" });
    const call = { id: "c1", name: "skill_load", input: { name: "refunds" } };
    expect(await outputCompactionHook.afterTool?.(hooks, call, result)).toBe(result);
    const read = { ...call, name: "read_file" };
    expect((await outputCompactionHook.afterTool?.(hooks, read, result))?.content).toMatch(
      /^\[output compacted/,
    );
  });
});

describe("skill_read", () => {
  it("reads a file of a skill by its path in the folder", async () => {
    expect(
      await skillReadTool.run({ name: "refunds", path: "./references/policy.md" }, ctx()),
    ).toEqual({ content: "refunds/references/policy.md:\nRefunds within 30 days." });
  });

  it("names a file that is not text, and the files there are for a path that is not one", async () => {
    expect(await skillReadTool.run({ name: "refunds", path: "assets/form.pdf" }, ctx())).toEqual({
      content:
        "assets/form.pdf of skill refunds is not text (4096 bytes): it cannot be read as text.",
      isError: true,
    });
    const missing = await skillReadTool.run({ name: "refunds", path: "../IDENTITY.md" }, ctx());
    expect(missing).toEqual({
      content:
        'No file "../IDENTITY.md" in skill refunds. Its files: assets/form.pdf, references/policy.md.',
      isError: true,
    });
  });
});
