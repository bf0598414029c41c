/**
 * The IDENTITY.md checks that span keys or reach beyond the schema (identity-schema.ts): the
 * `name` equals the agent's directory, `program` names a program and stands without the keys
 * only a model reads, and every name in `tools` is a tool, a domain, one of the agent's tools in
 * code or an MCP server's tool.
 * Contract: pure (no I/O); each problem is one IdentityError with its position. parseIdentity
 * runs them, so `npm run agents`, `npm run dev`, the Worker's registry and admin uploads check
 * the same things in the same words.
 */
import type { Document } from "yaml";
import { isProgramName, PROGRAM_NAMES } from "../programs/names.ts";
import { IdentityError } from "./identity-error.ts";
import { positionOf } from "./identity-position.ts";
import type { AgentFrontmatter } from "./identity-schema.ts";
import { TOOL_DOMAINS, TOOL_NAMES } from "./tool-names.ts";

/** The keys a program ignores (it answers instead of the model): a file gives none beside it. */
export const MODEL_ONLY_KEYS = ["model", "thinking", "effort", "tools", "mcp", "code"] as const;

/** The directory an identity file is in (`agents/<dir>/IDENTITY.md`, uploaded or not), or null. */
export function agentDirectory(file: string): string | null {
  return /^agents\/([^/]+)\/IDENTITY\.md(?: \(uploaded\))?$/.exec(file)?.[1] ?? null;
}

/** Runs every check on a frontmatter the schema accepted (`raw`: the keys as written). */
export function checkFrontmatter(
  file: string,
  source: string,
  doc: Document,
  raw: Record<string, unknown>,
  fm: AgentFrontmatter,
  custom: readonly string[] = [],
): void {
  const at = (path: Array<string | number>) => positionOf(doc, source, path);
  const dir = agentDirectory(file);
  if (dir !== null && fm.name !== dir) {
    throw new IdentityError(
      file,
      "frontmatter.name",
      `"${fm.name}" must equal the directory name "${dir}"`,
      at(["name"]),
    );
  }
  if (fm.program !== undefined) {
    if (!isProgramName(fm.program)) {
      throw new IdentityError(
        file,
        "frontmatter.program",
        `no program "${fm.program}" in src/programs/ (programs: ${PROGRAM_NAMES.join(", ")}); a model-driven agent has no program key`,
        at(["program"]),
      );
    }
    const beside = MODEL_ONLY_KEYS.find((key) => Object.hasOwn(raw, key));
    if (beside !== undefined) {
      throw new IdentityError(
        file,
        `frontmatter.${beside}`,
        `not with program "${fm.program}": a program answers instead of the model, so ${MODEL_ONLY_KEYS.join(", ")} go unused; remove ${beside} or program`,
        positionOf(doc, source, [], beside),
      );
    }
  }
  checkToolNames(file, source, doc, fm, custom);
}

/**
 * Every name in `tools` must be a tool, a domain, one of the agent's tools in code (`custom`), or
 * one of its MCP servers' tools.
 */
function checkToolNames(
  file: string,
  source: string,
  doc: Document,
  fm: AgentFrontmatter,
  custom: readonly string[],
) {
  const servers = fm.mcp.map((m) => `${m.name}__`);
  const known = (name: string) =>
    TOOL_NAMES.includes(name) ||
    TOOL_DOMAINS.includes(name) ||
    custom.includes(name) ||
    servers.some((prefix) => name.startsWith(prefix) && name.length > prefix.length);
  for (const list of ["allow", "deny", "requireApproval"] as const) {
    const names = fm.tools?.[list] ?? [];
    const index = names.findIndex((name) => !known(name));
    if (index < 0) continue;
    const mcp = servers.length > 0 ? ` or <server>__<tool> of ${servers.join(", ")}` : "";
    const own = custom.length > 0 ? `; the agent's tools in code: ${custom.join(", ")}` : "";
    throw new IdentityError(
      file,
      `frontmatter.tools.${list}.${index}`,
      `unknown tool "${names[index]}"; tools: ${TOOL_NAMES.join(", ")}; domains: ${TOOL_DOMAINS.join(", ")}${own}${mcp}`,
      positionOf(doc, source, ["tools", list, index]),
    );
  }
}
