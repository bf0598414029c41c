/** A `Subagents` handle for tool tests that never delegate. */
import type { Subagents } from "../../src/subagents/types.ts";

export const NO_SUBAGENTS: Subagents = {
  types: () => [],
  start: async () => ({ ok: false, error: "no sub-agents in this test" }),
  answer: async () => {},
  cancel: async () => {},
};
