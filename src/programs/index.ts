/**
 * The agent programs an IDENTITY.md may name in its frontmatter (`program: <name>`), instead of a
 * model. Pure: no I/O.
 */
import { conformanceProgram } from "./conformance.ts";
import { isProgramName, type ProgramName } from "./names.ts";
import type { AgentProgram } from "./types.ts";

/** Every program by name (names.ts lists the names; the type keeps the two in step). */
const PROGRAMS: Readonly<Record<ProgramName, AgentProgram>> = { conformance: conformanceProgram };

/**
 * The program an agent runs, or null for a model-driven agent. Throws for an unknown name. Takes
 * the two fields of an agent definition it reads (programs/ sits below agents/).
 */
export function programFor(agent: { name: string; program: string | null }): AgentProgram | null {
  if (agent.program === null) return null;
  const program = isProgramName(agent.program) ? PROGRAMS[agent.program] : undefined;
  if (!program) throw new Error(`agent ${agent.name}: no program named ${agent.program}`);
  return program;
}
