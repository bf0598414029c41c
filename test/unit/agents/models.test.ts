/**
 * Agents' models and tool grants (reference design 003): `effort: max` where the model takes it
 * (rejected with the field where the file's model does not, stepped down on a default model that
 * does not), `DEFAULT_MODEL` for a file that names no model, and no run_code for a read-only
 * agent unless its file grants it.
 */

import type { Model } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, expectTypeOf, it } from "vitest";
import { parseIdentity, withDefaultModel } from "../../../src/agents/identity.ts";
import { effortFor, effortsOf, KNOWN_MODELS, nearModel } from "../../../src/agents/models.ts";
import { loadConfig } from "../../../src/config/config.ts";
import { BUILT_IN_MODEL } from "../../../src/config/env-schema.ts";
import { modelParams } from "../../../src/loop/turn/model-params.ts";
import { toolsFor } from "../../../src/tools/catalog.ts";
import { identityErrorOf, identityText } from "../../helpers/identities.ts";

const FILE = "agents/demo/IDENTITY.md";
const identity = (frontmatter: string[]) =>
  identityText(["name: demo", ...frontmatter], "You are demo.");
const parse = (frontmatter: string[]) => parseIdentity(FILE, identity(frontmatter));
const errorOf = (frontmatter: string[]) => identityErrorOf(FILE, identity(frontmatter));

describe("effort", () => {
  it("accepts effort: max where the model takes it (Opus and Sonnet 4.6 on, Claude 5, unknown ids)", () => {
    for (const model of [
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-opus-4-7-20260416",
      "claude-sonnet-5",
      "a-proxy-model",
    ])
      expect(parse([`model: ${model}`, "effort: max"]).effort).toBe("max");
    // No model named: checked where it runs, against DEFAULT_MODEL.
    expect(parse(["effort: max"]).effort).toBe("max");
  });

  it("rejects an effort the named model does not take, at the effort field", () => {
    const opus45 = errorOf(["model: claude-opus-4-5", "effort: max"]);
    expect(opus45.field).toBe("frontmatter.effort");
    expect(opus45.message).toBe(
      `${FILE}:4:9: frontmatter.effort: claude-opus-4-5 does not take effort "max" (it takes low, medium, high); "max" needs Opus or Sonnet 4.6 or later`,
    );
    expect(parse(["model: claude-opus-4-5", "effort: high"]).effort).toBe("high");
    const haiku = errorOf(["model: claude-haiku-4-5-20251001", "effort: low"]);
    expect(haiku.message).toContain("claude-haiku-4-5-20251001 takes no effort setting");
    expect(errorOf(["model: claude-sonnet-4-5", "effort: medium"]).field).toBe(
      "frontmatter.effort",
    );
  });

  it("knows each family's levels and steps an effort down to what a model takes", () => {
    expect(effortsOf("claude-opus-4-6")).toEqual(["low", "medium", "high", "max"]);
    expect(effortsOf("claude-opus-4-5-20251101")).toEqual(["low", "medium", "high"]);
    expect(effortsOf("claude-3-5-sonnet-20241022")).toEqual([]);
    expect(effortsOf("claude-opus-4-1")).toEqual([]);
    expect(effortsOf("gpt-something")).toBeNull();
    expect(effortFor("max", "claude-opus-4-6")).toBe("max");
    expect(effortFor("max", "claude-opus-4-5")).toBe("high");
    expect(effortFor("high", "claude-haiku-4-5")).toBeNull();
    expect(effortFor(null, "claude-opus-4-6")).toBeNull();
    expect(effortFor("max", "a-proxy-model")).toBe("max");
  });

  it("sends the effort in output_config, stepped down on a default model that does not take it", () => {
    const agent = parse(["effort: max"]);
    const params = (model: string) =>
      modelParams(withDefaultModel(agent, model), "system", [], []) as {
        model: string;
        output_config?: { effort: string };
      };
    expect(params("claude-opus-4-6")).toMatchObject({
      model: "claude-opus-4-6",
      output_config: { effort: "max" },
    });
    expect(params("claude-opus-4-5").output_config).toEqual({ effort: "high" });
    expect(params("claude-haiku-4-5").output_config).toBeUndefined();
  });
});

describe("DEFAULT_MODEL", () => {
  it("applies to an agent whose file names no model, never to one that names it", () => {
    const unnamed = parse([]);
    expect(unnamed).toMatchObject({ model: BUILT_IN_MODEL, modelNamed: false });
    expect(withDefaultModel(unnamed, "claude-opus-4-6").model).toBe("claude-opus-4-6");
    const named = parse(["model: claude-haiku-4-5"]);
    expect(named.modelNamed).toBe(true);
    expect(withDefaultModel(named, "claude-opus-4-6")).toBe(named);
  });

  it("is a var with the built-in model as its default", () => {
    expect(loadConfig({}).defaultModel).toBe("claude-sonnet-4-6");
    expect(loadConfig({ DEFAULT_MODEL: " claude-opus-4-6 " }).defaultModel).toBe("claude-opus-4-6");
  });
});

describe("run_code for read-only agents", () => {
  const names = (frontmatter: string[]) => toolsFor(parse(frontmatter), loadConfig({})).names();
  const readOnly = ["tools:", "  deny: [write_file, edit_file]"];

  it("is withheld from an agent that cannot change the workspace", () => {
    expect(names(readOnly)).not.toContain("run_code");
    expect(names(["tools:", "  deny: [workspace]"])).not.toContain("run_code");
    expect(parse(readOnly).tools.deny).toEqual(["write_file", "edit_file", "run_code"]);
    // Denying only one of the two leaves the agent able to write: run_code stays.
    expect(names(["tools:", "  deny: [edit_file]"])).toContain("run_code");
    expect(names([])).toContain("run_code");
  });

  it("is granted by naming run_code or the code domain in allow, or by a code mapping", () => {
    expect(
      names(["tools:", "  allow: [read_file, run_code]", "  deny: [write_file, edit_file]"]),
    ).toEqual(["read_file", "run_code"]);
    expect(names(["tools:", "  allow: [code, read_file]", "  deny: [workspace]"])).toEqual([
      "run_code",
    ]);
    expect(names([...readOnly, "code: { cpuMs: 500 }"])).toContain("run_code");
  });
});

/** The literal ids of a union that also admits any string (the SDK's `(string & {})`). */
type Literals<T> = T extends string ? (string extends T ? never : T) : never;

describe("the model ids the harness knows", () => {
  it("are the SDK's Model ids, no more and no fewer", () => {
    expectTypeOf<(typeof KNOWN_MODELS)[number]>().toEqualTypeOf<Literals<Model>>();
    expect(new Set(KNOWN_MODELS).size).toBe(KNOWN_MODELS.length);
  });

  it("names the known id one edit from a likely typo, and nothing for a known or far id", () => {
    expect(nearModel("claude-sonet-4-6")).toBe("claude-sonnet-4-6");
    expect(nearModel("claude-sonnet-4.6")).toBe("claude-sonnet-4-6");
    expect(nearModel("Claude-Sonnet-4-6")).toBe("claude-sonnet-4-6");
    expect(nearModel("claude-haiku-45")).toBe("claude-haiku-4-5");
    expect(nearModel("claude-sonnet-4-6")).toBeNull();
    expect(nearModel("claude-opus-4-5-20251101")).toBeNull();
    expect(nearModel("gpt-5")).toBeNull();
    expect(nearModel("claude-snt-4-6")).toBeNull();
  });
});
