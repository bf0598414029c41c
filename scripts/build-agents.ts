/**
 * `npm run agents` (the agents half): bundles agents/<name>/ (IDENTITY.md, tools in code, skills)
 * and shared/ into src/agents/bundled.generated.ts and src/agents/tools.generated.ts
 * (agent-bundle.ts). Contract: run as `node scripts/build-agents.ts` from any directory; validates
 * every agent as the Worker will (every check lives in src/agents/), exits 1 with the error on
 * stderr (`agents/<name>/IDENTITY.md:<line>:<column>: <field>: <reason>`, or the skill's or tool
 * file's), and rewrites a generated file only when its content changes. Under `npm run dev`
 * (`WRANGLER_COMMAND=dev`) an invalid agent does not stop the build: it is bundled with its error
 * printed; the Worker does not serve it and serves the other agents. A `model` one edit from a
 * model id the harness knows (a likely typo) is warned about on stderr, with its line and column,
 * and bundled as it is. Types are not checked here: `npm run typecheck` checks the tools in code,
 * and `npm run dev` as they change (tool-types.ts).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeAgentBundle } from "./agent-bundle.ts";
import { brokenAgentLine } from "./dev-log.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

try {
  const { names, broken, warnings } = writeAgentBundle(root, {
    lenient: process.env.WRANGLER_COMMAND === "dev",
  });
  for (const warning of warnings) console.error(warning);
  for (const error of new Set(broken.values())) console.error(brokenAgentLine(error));
  console.log(`agents: bundled ${names.length} (${names.join(", ")})`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
