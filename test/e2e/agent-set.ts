/**
 * The agents a default deployment serves, read from a checkout's agents/ directory the way the
 * build reads it: every valid agents/<name>/IDENTITY.md except the conformance agent (served only
 * where CONFORMANCE_AGENT=true). e2e tests that list "every agent" take them from here, so an
 * agent a user adds keeps the suite green. Node only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { IdentityError, parseIdentity } from "../../src/agents/identity.ts";

const checkout = join(import.meta.dirname, "..", "..");

/** The default agent of a deployment that sets no DEFAULT_AGENT. */
export const DEFAULT_AGENT = "assistant";

/** The names of the agents served from `root`'s agents/ (default: this checkout), sorted. */
export function servedAgents(root = checkout): string[] {
  const dir = join(root, "agents");
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .filter((name) => name !== "conformance" && valid(join(dir, name, "IDENTITY.md"), name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The banner's agents row for `names` (the default agent marked). */
export function bannerAgents(names: readonly string[], defaultAgent = DEFAULT_AGENT): string {
  return names.map((n) => (n === defaultAgent ? `${n} (default)` : n)).join(", ");
}

function valid(path: string, name: string): boolean {
  if (!existsSync(path)) return false;
  try {
    parseIdentity(`agents/${name}/IDENTITY.md`, readFileSync(path, "utf8"));
    return true;
  } catch (error) {
    if (error instanceof IdentityError) return false;
    throw error;
  }
}
