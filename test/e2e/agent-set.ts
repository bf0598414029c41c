/**
 * The agents a default deployment serves, read from a checkout's agents/ directory the way the
 * build reads it (scripts/agent-sources.ts: the IDENTITY.md with its tools and skills, and the
 * shared ones): every valid agent except the conformance agent (served only where
 * CONFORMANCE_AGENT=true). e2e tests that list "every agent" take them from here, so an
 * agent a user adds keeps the suite green. Node only.
 */
import { join } from "node:path";
import {
  type AgentFolder,
  checkAgent,
  readAgentFolders,
  readSharedFolder,
  type SharedFolder,
} from "../../scripts/agent-sources.ts";
import { IdentityError } from "../../src/agents/identity.ts";

const checkout = join(import.meta.dirname, "..", "..");

/** The default agent of a deployment that sets no DEFAULT_AGENT. */
export const DEFAULT_AGENT = "assistant";

/** The names of the agents served from `root`'s agents/ (default: this checkout), sorted. */
export function servedAgents(root = checkout): string[] {
  const shared = readSharedFolder(root);
  return readAgentFolders(root)
    .filter((folder) => folder.name !== "conformance" && valid(folder, shared))
    .map((folder) => folder.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The banner's agents row for `names` (the default agent marked). */
export function bannerAgents(names: readonly string[], defaultAgent = DEFAULT_AGENT): string {
  return names.map((n) => (n === defaultAgent ? `${n} (default)` : n)).join(", ");
}

function valid(folder: AgentFolder, shared: SharedFolder): boolean {
  try {
    checkAgent(folder, shared);
    return true;
  } catch (error) {
    if (error instanceof IdentityError) return false;
    throw error;
  }
}
