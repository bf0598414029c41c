/**
 * Agent registry: AgentDefinitions by name, built from raw IDENTITY.md entries.
 * Contract: construction parses every entry and throws the first IdentityError (a registry
 * is never half-valid); lookups are synchronous and do no I/O. The bundled registry is parsed
 * once per isolate. Runtime overrides (admin uploads) build a new registry from entries.
 */
import { BUNDLED_IDENTITIES } from "./bundled.generated.ts";
import { type AgentDefinition, IdentityError, parseIdentity } from "./identity.ts";

/** One raw identity file: its repository-relative path and its text. */
export interface IdentityEntry {
  readonly file: string;
  readonly text: string;
}

/** Immutable set of validated agents, keyed by frontmatter `name`. */
export class AgentRegistry {
  readonly #agents: ReadonlyMap<string, AgentDefinition>;

  /** Parses every entry; throws IdentityError on the first invalid one or a duplicate name. */
  constructor(entries: ReadonlyArray<IdentityEntry>) {
    const agents = new Map<string, AgentDefinition>();
    for (const entry of entries) {
      const agent = parseIdentity(entry.file, entry.text);
      const existing = agents.get(agent.name);
      if (existing) {
        throw new IdentityError(
          entry.file,
          "frontmatter.name",
          `"${agent.name}" is already defined by ${existing.file}`,
        );
      }
      agents.set(agent.name, agent);
    }
    this.#agents = new Map([...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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

/** The agents bundled at build time (agents/<name>/IDENTITY.md), parsed once per isolate. */
export function bundledAgents(): AgentRegistry {
  bundled ??= new AgentRegistry(BUNDLED_IDENTITIES);
  return bundled;
}
