/** The agent network's variables: registry, distribution, switched-off agents, call rules. */
import { describe, expect, it } from "vitest";
import { mayCall, parseAgentNetwork } from "../../../src/config/agent-network.ts";

const registry = JSON.stringify({
  researcher: { url: "https://r.example/agents/researcher/" },
  billing: { service: "BILLING", description: "Invoices" },
});

describe("agent network config", () => {
  it("parses the registry and defaults to nothing distributed", () => {
    const net = parseAgentNetwork({ A2A_AGENTS: registry });
    expect(Object.keys(net.agents)).toEqual(["researcher", "billing"]);
    expect(net.agents.billing).toMatchObject({ name: "billing", service: "BILLING" });
    expect(net.distributed).toEqual([]);
    expect(parseAgentNetwork({})).toEqual({
      agents: {},
      distributed: [],
      disabled: [],
      callRules: {},
    });
  });

  it("distributes a list, all, or everything in DISTRIBUTED_MODE; the list wins", () => {
    const base = { A2A_AGENTS: registry };
    expect(parseAgentNetwork({ ...base, DISTRIBUTED_AGENTS: "researcher" }).distributed).toEqual([
      "researcher",
    ]);
    expect(parseAgentNetwork({ ...base, DISTRIBUTED_AGENTS: "all" }).distributed).toEqual([
      "researcher",
      "billing",
    ]);
    expect(parseAgentNetwork({ ...base, DISTRIBUTED_MODE: "true" }).distributed).toEqual([
      "researcher",
      "billing",
    ]);
    expect(
      parseAgentNetwork({ ...base, DISTRIBUTED_MODE: "true", DISTRIBUTED_AGENTS: "billing" })
        .distributed,
    ).toEqual(["billing"]);
  });

  it("switches agents off with ENABLE_<NAME>=false", () => {
    const net = parseAgentNetwork({
      ENABLE_DEEP_THINKER: "false",
      ENABLE_WRITER: "true",
      ENABLE_RESEARCHER: "0",
    });
    expect(net.disabled.sort()).toEqual(["deep-thinker", "researcher"]);
  });

  it("applies call rules: listed callers only reach their callees", () => {
    const net = parseAgentNetwork({
      AGENT_CALL_RULES: JSON.stringify({ writer: ["researcher"], assistant: ["*"] }),
    });
    expect(mayCall(net, "writer", "researcher")).toBe(true);
    expect(mayCall(net, "writer", "billing")).toBe(false);
    expect(mayCall(net, "assistant", "billing")).toBe(true);
    expect(mayCall(net, "researcher", "anyone")).toBe(true);
  });

  it("names the variable when a value is unusable", () => {
    expect(() => parseAgentNetwork({ A2A_AGENTS: "{" })).toThrow(
      "configuration: A2A_AGENTS: not valid JSON",
    );
    expect(() => parseAgentNetwork({ A2A_AGENTS: JSON.stringify({ x: {} }) })).toThrow(
      "configuration: A2A_AGENTS.x: needs url or service",
    );
    expect(() =>
      parseAgentNetwork({ A2A_AGENTS: JSON.stringify({ Bad: { url: "https://x/" } }) }),
    ).toThrow(/A2A_AGENTS\.Bad: agent names are kebab-case/);
    expect(() => parseAgentNetwork({ DISTRIBUTED_AGENTS: "writer" })).toThrow(
      "configuration: DISTRIBUTED_AGENTS: writer has no A2A_AGENTS entry to reach it",
    );
    expect(() => parseAgentNetwork({ AGENT_CALL_RULES: JSON.stringify({ a: "b" }) })).toThrow(
      /AGENT_CALL_RULES\.a/,
    );
  });
});
