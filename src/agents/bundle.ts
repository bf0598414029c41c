/**
 * The agents the build bundled, as the Worker uses them: the entries and the shared set of
 * bundled.generated.ts (identities, skills, the names of the tools in code, the build's problems)
 * and the tool modules of tools.generated.ts. A module whose default export is not a tool made by
 * `defineAgentTool`, or is a tool of another name than its file's, is a problem of its agent (of
 * the agents given it, for a shared one), as a type error is at the build. Read once per isolate.
 * The tools these exports hold become an agent's tools in tools/custom/custom-tools.ts.
 */
import type { EntryProblem, IdentityEntry, SharedExtensions } from "./agent-entry.ts";
import { BUNDLED_IDENTITIES, SHARED_EXTENSIONS } from "./bundled.generated.ts";
import type { AgentDefinition } from "./identity.ts";
import { isToolExport, type ToolExport } from "./tool-export.ts";
import { BUNDLED_TOOLS } from "./tools.generated.ts";

/** The bundled entries and the shared set, with the tool modules' problems. */
export interface BundledSet {
  entries: IdentityEntry[];
  shared: SharedExtensions;
  /** The tools in code by file (`agents/<agent>/tools/<tool>.ts`, `shared/tools/<tool>.ts`). */
  tools: ReadonlyMap<string, ToolExport>;
}

let set: BundledSet | undefined;

/** The file of agent `agent`'s own tool `name`, and of the shared tool `name`. */
export const ownToolFile = (agent: string, name: string) => `agents/${agent}/tools/${name}.ts`;
const sharedToolFile = (name: string) => `shared/tools/${name}.ts`;

/** The bundle, read and checked once per isolate. */
export function bundledSet(): BundledSet {
  if (set) return set;
  const tools = new Map<string, ToolExport>();
  const problems = new Map<string, EntryProblem>();
  for (const { file, module } of BUNDLED_TOOLS) {
    const name = /([^/]+)\.ts$/.exec(file)?.[1] ?? file;
    // A module namespace: its `default` is what the file exports by default, if anything.
    const exported = (module as { default?: unknown } | null)?.default;
    const problem = toolExportProblem(exported, name);
    if (problem === null && isToolExport(exported)) tools.set(file, exported);
    else problems.set(file, { file, reason: problem ?? "not a tool" });
  }
  set = {
    entries: BUNDLED_IDENTITIES.map((entry) => {
      const agent = /^agents\/([^/]+)\//.exec(entry.file)?.[1] ?? "";
      const problem =
        entry.problem ??
        (entry.tools ?? [])
          .map((name) => problems.get(ownToolFile(agent, name)))
          .find((p) => p !== undefined);
      return problem ? { ...entry, problem } : entry;
    }),
    shared: {
      skills: SHARED_EXTENSIONS.skills,
      tools: SHARED_EXTENSIONS.tools.map((tool) => {
        const problem = tool.problem ?? problems.get(tool.file);
        return problem ? { ...tool, problem } : tool;
      }),
    },
    tools,
  };
  return set;
}

/** Why a tool file's default export cannot serve as the tool `name`, or null. */
export function toolExportProblem(exported: unknown, name: string): string | null {
  if (!isToolExport(exported))
    return 'its default export is not a tool: export default defineAgentTool({ ... }) (import { defineAgentTool } from "#harness/tool")';
  if (exported.name !== name)
    return `the tool is named "${exported.name}"; a tool is named as its file: "${name}"`;
  return null;
}

/**
 * The tools in code `agent` runs, as their files export them: its own, else the shared tool of
 * each name it was given.
 */
export function toolExportsOf(agent: AgentDefinition): ToolExport[] {
  const { tools } = bundledSet();
  return agent.customTools.flatMap((name) => {
    const tool = tools.get(ownToolFile(agent.name, name)) ?? tools.get(sharedToolFile(name));
    return tool ? [tool] : [];
  });
}
