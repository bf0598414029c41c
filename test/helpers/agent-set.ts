/**
 * The agents a default deployment serves, as the workerd tests see them: every valid
 * agents/<name>/IDENTITY.md bundled by `npm run agents` except the conformance agent (served only
 * where CONFORMANCE_AGENT=true). Tests that walk "every agent" take them from here, so an agent a
 * user adds keeps the suite green.
 */
import { bundledAgents } from "../../src/agents/registry.ts";

/** The served agents' names, sorted (as `GET /agents` lists them). */
export const SERVED_AGENTS: readonly string[] = bundledAgents()
  .names()
  .filter((name) => name !== "conformance");
