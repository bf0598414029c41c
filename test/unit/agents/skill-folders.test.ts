/**
 * Agent Skills as the build and an upload give them (src/agents/skill-folders.ts): a SKILL.md in
 * the published format parsed with its files, each refusal at the file, line and field; an
 * upload's map of folders; an agent's own skills shadowing the shared ones.
 */
import { describe, expect, it } from "vitest";
import { IdentityError } from "../../../src/agents/identity.ts";
import {
  parseSkill,
  type SkillSource,
  skillFilesOf,
  skillSourcesOf,
  skillsOf,
} from "../../../src/agents/skill-folders.ts";

const FILE = "agents/orders/skills/refunds/SKILL.md";
const skillText = (frontmatter: string[], body = "# Refunds\n\n1. Check the order.") =>
  ["---", ...frontmatter, "---", "", body].join("\n");
const source = (text: string, files: SkillSource["files"] = [], file = FILE): SkillSource => ({
  file,
  text,
  files,
});

/** The message parseSkill throws for `s`. */
function errorOf(s: SkillSource): string {
  try {
    parseSkill(s);
  } catch (error) {
    if (error instanceof IdentityError) return error.message;
    throw error;
  }
  throw new Error("expected parseSkill to throw");
}

describe("a SKILL.md", () => {
  it("gives its name, description, body and the files beside it, sorted; other keys are left alone", () => {
    const skill = parseSkill(
      source(
        skillText([
          "name: refunds",
          "description: Handles refund requests. Use when a customer asks for money back.",
          "license: Apache-2.0",
          "metadata: { author: team }",
          "allowed-tools: Read Bash(git:*)",
          "disable-model-invocation: false",
        ]),
        [
          { path: "references/policy.md", text: "30 days.", bytes: 8 },
          { path: "assets/logo.png", text: null, bytes: 2048 },
        ],
      ),
    );
    expect(skill).toEqual({
      name: "refunds",
      description: "Handles refund requests. Use when a customer asks for money back.",
      body: "# Refunds\n\n1. Check the order.",
      files: [
        { path: "assets/logo.png", text: null, bytes: 2048 },
        { path: "references/policy.md", text: "30 days.", bytes: 8 },
      ],
      file: FILE,
    });
  });

  it("refuses a name other than its folder's, or not in the format, at the name", () => {
    expect(errorOf(source(skillText(["name: returns", "description: d"])))).toBe(
      `${FILE}:2:7: frontmatter.name: "returns" must equal the folder name "refunds"`,
    );
    for (const name of ["Refunds", "-refunds", "re--funds", "a".repeat(65)])
      expect(errorOf(source(skillText([`name: ${name}`, "description: d"])))).toMatch(
        /^agents\/orders\/skills\/refunds\/SKILL\.md:2:7: frontmatter\.name: expected a skill name/,
      );
  });

  it("needs a description of at most 1024 characters, and a frontmatter", () => {
    expect(errorOf(source(skillText(["name: refunds"])))).toMatch(
      /:2:1: frontmatter\.description: expected a non-empty string/,
    );
    expect(
      errorOf(source(skillText(["name: refunds", `description: ${"d".repeat(1025)}`]))),
    ).toMatch(/:3:14: frontmatter\.description: expected a non-empty string of at most 1024/);
    expect(errorOf(source("# Refunds, no frontmatter"))).toBe(
      `${FILE}:1:1: frontmatter: missing; the file must start with a '---' line, then YAML, then a closing '---' line`,
    );
  });

  it("refuses files beside it outside its folder, twice, or too large", () => {
    const ok = skillText(["name: refunds", "description: d"]);
    for (const path of ["../IDENTITY.md", "/etc/passwd", "a//b", "SKILL.md", "a b.md"])
      expect(errorOf(source(ok, [{ path, text: "x", bytes: 1 }]))).toMatch(
        /^agents\/orders\/skills\/refunds\/SKILL\.md: files: ".*": expected /,
      );
    expect(
      errorOf(
        source(ok, [
          { path: "a.md", text: "x", bytes: 1 },
          { path: "a.md", text: "y", bytes: 1 },
        ]),
      ),
    ).toContain('"a.md" is given twice');
    expect(errorOf(source(ok, [{ path: "big.bin", text: null, bytes: 600_000 }]))).toContain(
      '"big.bin" is 600000 bytes; a file beside SKILL.md is at most 524288',
    );
  });
});

describe("skills of an agent", () => {
  const skill = (name: string, description = `${name} skill`) =>
    parseSkill(
      source(skillText([`name: ${name}`, `description: ${description}`]), [], `x/${name}/SKILL.md`),
    );

  it("are its own, then the shared ones it does not shadow", () => {
    const all = skillsOf(
      [skill("refunds", "ours")],
      [skill("refunds", "shared"), skill("tone")],
      "agents/orders/IDENTITY.md",
    );
    expect(all.map((s) => [s.name, s.description])).toEqual([
      ["refunds", "ours"],
      ["tone", "tone skill"],
    ]);
  });

  it("come in an upload as folders of files, SKILL.md among them, and go back the same way", () => {
    const files = {
      refunds: {
        "SKILL.md": skillText(["name: refunds", "description: d"]),
        "references/policy.md": "30 days, «net»",
      },
    };
    const sources = skillSourcesOf("agents/orders/skills", files);
    expect(sources).toEqual([
      {
        file: "agents/orders/skills/refunds/SKILL.md (uploaded)",
        text: files.refunds["SKILL.md"],
        files: [{ path: "references/policy.md", text: "30 days, «net»", bytes: 16 }],
      },
    ]);
    expect(parseSkill(sources[0] as SkillSource).name).toBe("refunds");
    expect(skillFilesOf(sources)).toEqual(files);
    expect(() => skillSourcesOf("agents/orders/skills", { refunds: { "a.md": "x" } })).toThrow(
      "agents/orders/skills/refunds/SKILL.md (uploaded): not given: a skill needs a SKILL.md",
    );
  });
});
