/** Handles for tool tests that never delegate or call remote agents. */
import type { RemoteAgents, Subagents } from "../../src/loop/contracts.ts";

export const NO_SUBAGENTS: Subagents = {
  types: () => [],
  start: async () => ({ ok: false, error: "no sub-agents in this test" }),
  answer: async () => {},
  cancel: async () => {},
};

export const NO_REMOTE: RemoteAgents = {
  registry: () => [],
  connect: () => ({ ok: false, error: "no remote agents in this test" }),
};
