/**
 * The IDENTITY.md checks across keys (src/agents/identity-checks.ts), run by parseIdentity with
 * file:line:column: the name equals the directory, a known `program` with no model keys beside
 * it; and the registry keeps such a file as broken (not served, listed as unavailable).
 */
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../../src/agents/identity.ts";
import { agentDirectory, MODEL_ONLY_KEYS } from "../../../src/agents/identity-checks.ts";
import { AgentRegistry } from "../../../src/agents/registry.ts";
import { identityErrorOf, identityText } from "../../helpers/identities.ts";

/** An IDENTITY.md with the given frontmatter lines. */
const identity = (frontmatter: string[]) => identityText(frontmatter, "You help.");

/** The message parseIdentity throws for `text` as `file`. */
const errorOf = (file: string, text: string) => identityErrorOf(file, text).message;

describe("IDENTITY.md checks across keys", () => {
  it("finds the agent's directory in a bundled or uploaded file's path only", () => {
    expect(agentDirectory("agents/writer/IDENTITY.md")).toBe("writer");
    expect(agentDirectory("agents/writer/IDENTITY.md (uploaded)")).toBe("writer");
    expect(agentDirectory("test.md")).toBeNull();
    expect(agentDirectory("agents/a/b/IDENTITY.md")).toBeNull();
  });

  it("refuses a name that is not the directory's, at the name's value", () => {
    expect(errorOf("agents/writer/IDENTITY.md", identity(["version: 1.0.0", "name: editor"]))).toBe(
      'agents/writer/IDENTITY.md:3:7: frontmatter.name: "editor" must equal the directory name "writer"',
    );
    expect(errorOf("agents/writer/IDENTITY.md (uploaded)", identity(["name: editor"]))).toBe(
      'agents/writer/IDENTITY.md (uploaded):2:7: frontmatter.name: "editor" must equal the directory name "writer"',
    );
    // A file outside agents/<name>/ (a test's, a card preview's) has no directory to match.
    expect(parseIdentity("preview.md", identity(["name: editor"])).name).toBe("editor");
  });

  it("refuses an unknown program, at its value, naming the programs", () => {
    expect(errorOf("agents/echo/IDENTITY.md", identity(["name: echo", "program: echo-bot"]))).toBe(
      'agents/echo/IDENTITY.md:3:10: frontmatter.program: no program "echo-bot" in src/programs/ (programs: conformance); a model-driven agent has no program key',
    );
  });

  it("refuses every model-only key beside a program, at that key", () => {
    const values: Record<(typeof MODEL_ONLY_KEYS)[number], string> = {
      model: "claude-sonnet-4-6",
      thinking: "true",
      effort: "low",
      tools: "{ deny: [web_fetch] }",
      mcp: "[]",
      code: "{ cpuMs: 100 }",
    };
    for (const key of MODEL_ONLY_KEYS) {
      const text = identity([
        "name: demo",
        "program: conformance",
        `  ${key}: ${values[key]}`.trim(),
      ]);
      expect(errorOf("agents/demo/IDENTITY.md", text)).toMatch(
        new RegExp(
          `^agents/demo/IDENTITY\\.md:4:1: frontmatter\\.${key}: not with program "conformance": .*remove ${key} or program$`,
        ),
      );
    }
    const fine = parseIdentity(
      "agents/demo/IDENTITY.md",
      identity(["name: demo", "program: conformance", "tags: [test]", "maxTurns: 3"]),
    );
    expect(fine.program).toBe("conformance");
  });

  it("keeps such a file as broken: not served, listed with its error", () => {
    const registry = new AgentRegistry([
      { file: "agents/ok/IDENTITY.md", text: identity(["name: ok"]) },
      { file: "agents/writer/IDENTITY.md", text: identity(["name: editor"]) },
      { file: "agents/echo/IDENTITY.md", text: identity(["name: echo", "program: nope"]) },
    ]);
    expect(registry.names()).toEqual(["ok"]);
    expect(registry.has("editor")).toBe(false);
    expect(registry.brokenList()).toEqual([
      {
        name: "writer",
        error:
          'agents/writer/IDENTITY.md:2:7: frontmatter.name: "editor" must equal the directory name "writer"',
      },
      {
        name: "echo",
        error: expect.stringMatching(/^agents\/echo\/IDENTITY\.md:3:10: frontmatter\.program:/),
      },
    ]);
  });
});
