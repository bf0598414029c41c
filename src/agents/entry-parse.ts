/**
 * An agent from its entry (agent-entry.ts): the identity parsed with what its folder and the shared
 * folder add. The shared skills are parsed once per set of entries ({@link parseShared}); an
 * agent's own skill or tool shadows a shared one of its name. What stops an agent being served is
 * one IdentityError at the file at fault: its IDENTITY.md, one of its skills, a shared skill, a
 * tool of its own the build could not bundle, or a shared one it would be given (by its
 * `tools.allow` / `tools.deny`). Pure: no I/O.
 */
import type { EntryProblem, IdentityEntry, SharedExtensions } from "./agent-entry.ts";
import { type AgentDefinition, IdentityError, parseIdentity } from "./identity.ts";
import { parseSkill, type SkillFolder, skillsOf } from "./skill-folders.ts";

/** The shared extensions as parsed: the skills, or the error of the first that is invalid. */
export interface ParsedShared {
  readonly source: SharedExtensions;
  readonly skills: SkillFolder[] | IdentityError;
}

/** Parses the shared skills once for every agent. */
export function parseShared(shared: SharedExtensions): ParsedShared {
  try {
    return { source: shared, skills: shared.skills.map(parseSkill) };
  } catch (error) {
    if (error instanceof IdentityError) return { source: shared, skills: error };
    throw error;
  }
}

/** The error of a build problem, at its place. */
export function problemError(problem: EntryProblem): IdentityError {
  const at =
    problem.line === undefined ? undefined : { line: problem.line, column: problem.column ?? 1 };
  return new IdentityError(problem.file, null, problem.reason, at);
}

/** Parses one entry; throws the IdentityError that keeps it from being served. */
export function parseEntry(entry: IdentityEntry, shared: ParsedShared): AgentDefinition {
  if (entry.problem) throw problemError(entry.problem);
  const own = (entry.skills ?? []).map(parseSkill);
  const sharedSkills = shared.skills instanceof IdentityError ? [] : shared.skills;
  const ownTools = entry.tools ?? [];
  const sharedTools = shared.source.tools.filter((t) => !ownTools.includes(t.name));
  const agent = parseIdentity(entry.file, entry.text, {
    tools: [...ownTools, ...sharedTools.map((t) => t.name)],
    skills: skillsOf(own, sharedSkills, entry.file),
  });
  // An agent of a program has no tools or skills: nothing shared can stop it.
  if (agent.program !== null) return agent;
  if (shared.skills instanceof IdentityError) throw shared.skills;
  for (const tool of sharedTools)
    if (tool.problem && given(agent, tool.name)) throw problemError(tool.problem);
  return agent;
}

/** Whether the agent's `tools.allow` / `tools.deny` let a tool in code through. */
function given(agent: AgentDefinition, name: string): boolean {
  const { allow, deny } = agent.tools;
  const named = (list: readonly string[]) => list.includes(name) || list.includes("custom");
  return (allow === null || named(allow)) && !named(deny);
}
