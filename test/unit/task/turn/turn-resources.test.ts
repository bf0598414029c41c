import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../../../src/agents/identity.ts";
import { loadConfig } from "../../../../src/config/config.ts";
import { codeSandboxFor } from "../../../../src/task/turn/turn-resources.ts";

const agent = parseIdentity(
  "agents/coder/IDENTITY.md",
  [
    "---",
    "name: coder",
    "description: Writes code.",
    "code:",
    "  bindings: [SEARCH_TOKEN, MISSING]",
    "  cpuMs: 70",
    "---",
    "You write code.",
  ].join("\n"),
);

describe("codeSandboxFor", () => {
  it("grants the sandbox only the bindings the agent names that the Worker has", () => {
    const env = { LOADER: { get() {} }, SEARCH_TOKEN: "t0k", OTHER_SECRET: "no" } as unknown as Env;
    const { codeSandbox } = codeSandboxFor(env, agent, loadConfig({}));
    expect(codeSandbox?.env).toEqual({ SEARCH_TOKEN: "t0k" });
    expect(codeSandbox?.cpuMs).toBe(70);
  });

  it("is nothing without a Worker Loader binding", () => {
    expect(codeSandboxFor({} as Env, agent, loadConfig({}))).toEqual({});
  });
});
