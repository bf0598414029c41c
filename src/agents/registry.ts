/**
 * Agent registry: AgentDefinitions by name, built from raw entries (an IDENTITY.md with its
 * folder's tools and skills, and the shared ones: agent-entry.ts).
 * Contract: construction parses every entry (entry-parse.ts); an invalid one (or a second one of
 * a name) is kept as broken, with its IdentityError, under its directory's name, so the other
 * agents serve while one file is being fixed and the broken one can answer what is wrong. Lookups
 * are synchronous and do no I/O. The bundled registry (bundle.ts: the build's entries, with the
 * problems of its tool modules) is parsed once per isolate. Runtime overrides (admin uploads)
 * build a new registry from entries.
 */
import { type IdentityEntry, NO_SHARED, type SharedExtensions } from "./agent-entry.ts";
import { bundledSet } from "./bundle.ts";
import { parseEntry, parseShared } from "./entry-parse.ts";
import { type AgentDefinition, IdentityError } from "./identity.ts";

export type { IdentityEntry };

/** The agent an entry is for: its directory's name (`agents/<name>/IDENTITY.md`). */
export function entryName(entry: IdentityEntry): string {
  return /^agents\/([^/]+)\//.exec(entry.file)?.[1] ?? entry.file;
}

/** Immutable set of validated agents, keyed by frontmatter `name`. */
export class AgentRegistry {
  readonly #agents: ReadonlyMap<string, AgentDefinition>;
  readonly #broken: ReadonlyMap<string, IdentityError>;

  /**
   * Parses every entry, with the `shared` tools and skills; an invalid entry or a duplicate name
   * is kept as broken.
   */
  constructor(entries: ReadonlyArray<IdentityEntry>, shared: SharedExtensions = NO_SHARED) {
    const agents = new Map<string, AgentDefinition>();
    const broken = new Map<string, IdentityError>();
    const parsedShared = parseShared(shared);
    for (const entry of entries) {
      try {
        const agent = parseEntry(entry, parsedShared);
        const existing = agents.get(agent.name);
        if (existing) {
          throw new IdentityError(
            entry.file,
            "frontmatter.name",
            `"${agent.name}" is already defined by ${existing.file}`,
          );
        }
        agents.set(agent.name, agent);
      } catch (error) {
        if (!(error instanceof IdentityError)) throw error;
        const name = entryName(entry);
        if (!broken.has(name)) broken.set(name, error);
      }
    }
    this.#agents = new Map([...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    this.#broken = broken;
  }

  /** Why the agent called `name` cannot be served (its file is invalid), or undefined. */
  broken(name: string): IdentityError | undefined {
    return this.#agents.has(name) ? undefined : this.#broken.get(name);
  }

  /** Every broken agent, by its directory's name, with the error. */
  brokenList(): Array<{ name: string; error: string }> {
    return [...this.#broken]
      .filter(([name]) => !this.#agents.has(name))
      .map(([name, error]) => ({ name, error: error.message }));
  }

  /** The agent called `name`, or undefined. */
  get(name: string): AgentDefinition | undefined {
    return this.#agents.get(name);
  }

  /** Whether an agent called `name` exists. */
  has(name: string): boolean {
    return this.#agents.has(name);
  }

  /** Every agent, sorted by name. */
  list(): AgentDefinition[] {
    return [...this.#agents.values()];
  }

  /** Every agent name, sorted. */
  names(): string[] {
    return [...this.#agents.keys()];
  }
}

let bundled: AgentRegistry | undefined;

/** The agents bundled at build time (agents/<name>/ and shared/), parsed once per isolate. */
export function bundledAgents(): AgentRegistry {
  const set = bundledSet();
  bundled ??= new AgentRegistry(set.entries, set.shared);
  return bundled;
}
