/**
 * What an agent is made from before it is parsed: its IDENTITY.md, the names of its tools in code,
 * its skills' files, and what every agent may use (the shared tools and skills). The build writes
 * these (src/agents/bundled.generated.ts), an admin's upload carries the identity and skills, and
 * the registry parses them (entry-parse.ts). Types, and the empty shared set; no code.
 */
import type { SkillSource } from "./skill-folders.ts";

/** Where and why the build could not bundle a tool in code (a type error, a bad name). */
export interface EntryProblem {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly reason: string;
}

/** One agent's raw files: its IDENTITY.md (repository-relative path and text) and its folder's. */
export interface IdentityEntry {
  readonly file: string;
  readonly text: string;
  /** The names of its own tools in code (`agents/<name>/tools/<tool>.ts`). */
  readonly tools?: readonly string[];
  /** Its own skills (`agents/<name>/skills/<skill>/`). */
  readonly skills?: readonly SkillSource[];
  /** A tool of its own the build could not bundle: the agent is not served until it is fixed. */
  readonly problem?: EntryProblem;
}

/** A shared tool in code (`shared/tools/<tool>.ts`): its name, and a build problem if any. */
export interface SharedTool {
  readonly name: string;
  readonly file: string;
  readonly problem?: EntryProblem;
}

/** What every model-driven agent may use beside its own: the shared tools and skills. */
export interface SharedExtensions {
  readonly tools: readonly SharedTool[];
  readonly skills: readonly SkillSource[];
}

/** No shared tools or skills. */
export const NO_SHARED: SharedExtensions = { tools: [], skills: [] };
