/**
 * The agent programs an IDENTITY.md may name in its frontmatter (`program: <name>`), instead of a
 * model. Pure: no I/O.
 */
import type { AgentDefinition } from "../agents/identity.ts";
import { conformanceProgram } from "./conformance.ts";
import type { AgentProgram } from "./types.ts";

const PROGRAMS: ReadonlyMap<string, AgentProgram> = new Map([["conformance", conformanceProgram]]);

/** The names of the programs, for the build's check of IDENTITY.md files. */
export const PROGRAM_NAMES: readonly string[] = [...PROGRAMS.keys()];

/** The program an agent runs, or null for a model-driven agent. Throws for an unknown name. */
export function programFor(agent: Pick<AgentDefinition, "name" | "program">): AgentProgram | null {
  if (agent.program === null) return null;
  const program = PROGRAMS.get(agent.program);
  if (!program) throw new Error(`agent ${agent.name}: no program named ${agent.program}`);
  return program;
}
