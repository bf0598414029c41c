/**
 * The agent network's configuration: the registry of remote A2A agents (`A2A_AGENTS`), which
 * sub-agents run remotely (`DISTRIBUTED_AGENTS`, `DISTRIBUTED_MODE`), which agents are switched
 * off (`ENABLE_<NAME>=false`), and who may call whom (`AGENT_CALL_RULES`). Pure: no I/O; a
 * value the harness cannot use throws with the variable's name.
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import { DELEGATION_PATTERN } from "./delegation-patterns.ts";

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** A registry entry's schema, built on first use. */
const entrySchema = lazy(() =>
  z
    .strictObject({
      url: z.url({ protocol: /^https?$/ }).optional(),
      service: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/, "a service binding name (upper case)")
        .optional(),
      description: z.string().max(2_000).optional(),
      authSecret: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/, "the name of a secret (upper case)")
        .optional(),
      requireSignature: z.boolean().optional(),
      cardKeysUrl: z.url({ protocol: /^https?$/ }).optional(),
    })
    .refine((e) => e.url !== undefined || e.service !== undefined, "needs url or service")
    .refine((e) => e.cardKeysUrl === undefined || e.requireSignature === true, {
      message: "cardKeysUrl needs requireSignature: true",
    }),
);

/** A remote A2A agent of the registry (trusted: no SSRF check). */
export type RemoteAgentEntry = z.infer<ReturnType<typeof entrySchema>> & { name: string };

/** The parsed network configuration. */
export interface AgentNetwork {
  /** Registry entries by name. */
  agents: Record<string, RemoteAgentEntry>;
  /** Sub-agent names that run remotely over A2A (each has a registry entry). */
  distributed: string[];
  /** Agents switched off entirely (`ENABLE_<NAME>=false`). */
  disabled: string[];
  /** caller -> callees it may call (`*` = any); callers not listed may call any agent. */
  callRules: Record<string, string[]>;
}

/** Raised for an unusable network variable; names it. */
export class NetworkConfigError extends Error {
  override readonly name = "ConfigError";
}

function json(name: string, value: unknown): unknown {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new NetworkConfigError(`configuration: ${name}: not valid JSON`);
  }
}

function issue(name: string, error: z.ZodError): NetworkConfigError {
  const first = error.issues[0];
  const where = first?.path.length ? `.${first.path.join(".")}` : "";
  return new NetworkConfigError(`configuration: ${name}${where}: ${first?.message ?? "invalid"}`);
}

const truthy = (v: string) => ["true", "1", "yes", "on"].includes(v.trim().toLowerCase());
const falsy = (v: string) => ["false", "0", "no", "off"].includes(v.trim().toLowerCase());

/** Parses the network variables from the Worker's env. */
export function parseAgentNetwork(env: Record<string, unknown>): AgentNetwork {
  const raw = json("A2A_AGENTS", env.A2A_AGENTS) ?? {};
  for (const key of typeof raw === "object" && raw !== null ? Object.keys(raw) : []) {
    if (!NAME.test(key))
      throw new NetworkConfigError(
        `configuration: A2A_AGENTS.${key}: agent names are kebab-case (a-z, 0-9, -)`,
      );
  }
  const registry = z.record(z.string(), entrySchema()).default({}).safeParse(raw);
  if (!registry.success) throw issue("A2A_AGENTS", registry.error);
  const agents: Record<string, RemoteAgentEntry> = {};
  for (const [name, entry] of Object.entries(registry.data)) agents[name] = { ...entry, name };

  const listed = typeof env.DISTRIBUTED_AGENTS === "string" ? env.DISTRIBUTED_AGENTS.trim() : "";
  const mode = typeof env.DISTRIBUTED_MODE === "string" && truthy(env.DISTRIBUTED_MODE);
  const distributed =
    listed === "all" || (listed === "" && mode)
      ? Object.keys(agents)
      : listed
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== "");
  for (const name of distributed) {
    if (!agents[name])
      throw new NetworkConfigError(
        `configuration: DISTRIBUTED_AGENTS: ${name} has no A2A_AGENTS entry to reach it`,
      );
  }

  const disabled = Object.entries(env)
    .filter(([k, v]) => /^ENABLE_[A-Z0-9_]+$/.test(k) && typeof v === "string" && falsy(v))
    .map(([k]) => k.slice("ENABLE_".length).toLowerCase().replaceAll("_", "-"));

  const rules = z
    .record(
      z.union([z.string().regex(NAME), z.string().regex(DELEGATION_PATTERN)]),
      z.array(z.union([z.literal("*"), z.string().regex(NAME)])),
    )
    .default({})
    .safeParse(json("AGENT_CALL_RULES", env.AGENT_CALL_RULES) ?? {});
  if (!rules.success) throw issue("AGENT_CALL_RULES", rules.error);

  return { agents, distributed, disabled, callRules: rules.data };
}

/** Whether `caller` may call `callee` under the rules. */
export function mayCall(network: AgentNetwork, caller: string, callee: string): boolean {
  const allowed = network.callRules[caller];
  return allowed === undefined || allowed.includes("*") || allowed.includes(callee);
}
