/**
 * The names of the agent programs (src/programs/), for the IDENTITY.md check of `program`.
 * Pure: no imports, so the identity parser can check a name without loading a program.
 */

/** Every program an IDENTITY.md may name in `program`. */
export const PROGRAM_NAMES = ["conformance"] as const;

/** The name of a program. */
export type ProgramName = (typeof PROGRAM_NAMES)[number];

/** Whether `name` is a program's name. */
export function isProgramName(name: string): name is ProgramName {
  return (PROGRAM_NAMES as readonly string[]).includes(name);
}
