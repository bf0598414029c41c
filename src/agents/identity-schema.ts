/**
 * The IDENTITY.md frontmatter schema (zod): every key, its default and the message a bad value
 * gets, plus the thinking budget a frontmatter asks for.
 * The schemas are built on first use ({@link agentFrontmatterSchema}), not at module load.
 * Contract: pure (imports only zod, the lazy helper and ./models.ts); parseIdentity (identity.ts)
 * turns its issues into IdentityErrors with positions.
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import { EFFORT_LEVELS, effortProblem } from "./models.ts";

/** Thinking budget used when the frontmatter says `thinking: true`. */
export const DEFAULT_THINKING_BUDGET = 4096;

const intBetween = (min: number, max: number) => {
  const error = `expected an integer between ${min} and ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};
const nonEmpty = (max: number) => {
  const error = `expected a non-empty string of at most ${max} characters`;
  return z.string({ error }).trim().min(1, { error }).max(max, { error });
};
const stringList = (item: z.ZodType<string>, error: string) => z.array(item, { error });
const toolNameError =
  "expected a tool name: lowercase letters, digits, '_' or '-', starting with a letter";
const toolNames = lazy(() =>
  stringList(
    z.string({ error: toolNameError }).regex(/^[a-z][a-z0-9_-]*$/, { error: toolNameError }),
    "expected a list of tool names",
  ),
);
/**
 * Names of the Worker's environment an agent grants its own tools (`tools.secrets`: secrets and
 * vars, strings; `tools.bindings`: bindings such as D1, KV or services): upper case, at most 32.
 */
const envNames = (kind: string) => {
  const error = `expected the name of a ${kind} (upper case letters, digits, '_')`;
  return z
    .array(z.string({ error }).regex(/^[A-Z_][A-Z0-9_]*$/, { error }), {
      error: `expected a list of ${kind} names`,
    })
    .max(32, { error: `expected at most 32 ${kind} names` });
};
/** The keys of the frontmatter's `tools` mapping. */
export const TOOLS_KEYS = ["allow", "deny", "requireApproval", "secrets", "bindings"];
const budgetError = "expected an integer of at least 1024";
const modeError = "expected media types such as text/plain, image/* or */*";
const mediaModes = lazy(() =>
  z
    .array(
      z
        .string({ error: modeError })
        .regex(/^(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/, {
          error: modeError,
        }),
      { error: modeError },
    )
    .min(1, { error: modeError })
    .max(32, { error: "expected at most 32 media types" }),
);

/**
 * A remote MCP server (streamable HTTP) whose tools join the agent's tools as `<name>__<tool>`.
 * `url` is fixed; `urlVar` names a wrangler var holding it (the server is skipped while the var is
 * unset); `authSecret` names a secret sent as a bearer token; `tools` limits which tools join.
 */
const mcpServerSchema = lazy(() =>
  z
    .strictObject(
      {
        name: z
          .string({ error: "expected a name" })
          .regex(/^[a-z][a-z0-9]{0,15}$/, { error: "expected 1-16 lower-case letters or digits" }),
        url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
        urlVar: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/, { error: "expected the name of a var (upper case)" })
          .optional(),
        authSecret: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/, { error: "expected the name of a secret (upper case)" })
          .optional(),
        tools: z.array(z.string().min(1).max(64)).optional(),
      },
      { error: "expected a mapping with name, url or urlVar, and optional authSecret and tools" },
    )
    .refine((m) => (m.url === undefined) !== (m.urlVar === undefined), {
      error: "give exactly one of url and urlVar",
    }),
);

/** An MCP server of an agent. */
export type McpServerConfig = z.infer<ReturnType<typeof mcpServerSchema>>;

/** A skill of the extended card, as the frontmatter lists it. */
const extendedSkillSchema = lazy(() =>
  z.strictObject(
    {
      id: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { error: "expected a kebab-case id" })
        .optional(),
      name: nonEmpty(100),
      description: nonEmpty(1000),
      tags: stringList(nonEmpty(64), "expected a list of tags").default([]),
      examples: stringList(nonEmpty(300), "expected a list of example prompts").default([]),
    },
    { error: "expected a mapping with name, description and optional id, tags and examples" },
  ),
);

/**
 * Schema of the YAML frontmatter, built on its first call; unknown keys are errors (camelCase
 * names only).
 */
export const agentFrontmatterSchema = lazy(() =>
  z.strictObject({ ...whoKeys(), ...grantKeys(), ...workKeys() }).superRefine((fm, ctx) => {
    const budget = thinkingBudget(fm.thinking);
    if (budget !== null && typeof fm.maxTokens === "number" && budget >= fm.maxTokens) {
      ctx.addIssue({
        code: "custom",
        path: typeof fm.thinking === "object" ? ["thinking", "budgetTokens"] : ["thinking"],
        message: `the thinking budget (${budget} tokens) must be less than maxTokens (${fm.maxTokens})`,
      });
    }
    // Checked against the model the file names; on the deployment's default model the loop
    // sends the highest level that model takes (models.ts effortFor).
    const problem =
      fm.effort && typeof fm.model === "string" ? effortProblem(fm.effort, fm.model) : null;
    if (problem) ctx.addIssue({ code: "custom", path: ["effort"], message: problem });
  }),
);

/** The agent's name, version and how its model is called. */
function whoKeys() {
  return {
    name: z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? "is required (the agent's kebab-case name, equal to its directory name)"
            : "expected a string",
      })
      .regex(/^[a-z][a-z0-9-]{0,62}$/, {
        error:
          "expected kebab-case: a lowercase letter, then lowercase letters, digits or '-' (at most 63)",
      }),
    description: nonEmpty(1000).optional(),
    version: z
      .string({ error: "expected a version string like 1.2.3 (quote it if YAML reads a number)" })
      .regex(/^\d+\.\d+\.\d+([-+].*)?$/, { error: "expected a version like 1.2.3" })
      .default("1.0.0"),
    /** Absent: the deployment's `DEFAULT_MODEL` (see identity.ts). */
    model: nonEmpty(200).optional(),
    maxTurns: intBetween(1, 500).default(500),
    maxTokens: intBetween(256, 128000).default(8192),
    thinking: z
      .union(
        [
          z.boolean(),
          z.strictObject({ budgetTokens: z.int({ error: budgetError }).min(1024, budgetError) }),
        ],
        { error: "expected true, false or { budgetTokens: <integer of at least 1024> }" },
      )
      .optional(),
    effort: z.enum(EFFORT_LEVELS, { error: "expected low, medium, high or max" }).optional(),
  };
}

/** What its tools may do, how it is listed and who may call it. */
function grantKeys() {
  return {
    tools: z
      .strictObject(
        {
          allow: toolNames().optional(),
          deny: toolNames().optional(),
          requireApproval: toolNames().optional(),
          secrets: envNames("secret").optional(),
          bindings: envNames("binding").optional(),
        },
        {
          error:
            "expected a mapping with optional allow, deny, requireApproval, secrets and bindings lists",
        },
      )
      .optional(),
    tags: stringList(nonEmpty(64), "expected a list of tags").default([]),
    icon: z
      .string()
      .refine(isIcon, { error: "expected a single emoji or an https:// URL" })
      .optional(),
    starters: stringList(nonEmpty(300), "expected a list of starter prompts")
      .max(8, { error: "expected at most 8 starter prompts" })
      .default([]),
    access: z
      .strictObject(
        {
          roles: z.array(z.enum(["user", "admin"], { error: "expected user or admin" })).optional(),
          users: z.array(z.string().min(1).max(256)).optional(),
        },
        { error: "expected a mapping with optional roles and users lists" },
      )
      .optional(),
  };
}

/** Its code bindings, MCP servers, program, extended skills and media types. */
function workKeys() {
  return {
    code: z
      .strictObject(
        {
          bindings: z
            .array(z.string().regex(/^[A-Z][A-Z0-9_]*$/, { error: "a binding name (upper case)" }))
            .max(16)
            .optional(),
          cpuMs: z.int().min(1).max(300_000).optional(),
          timeoutMs: z.int().min(100).max(300_000).optional(),
        },
        { error: "expected a mapping with optional bindings, cpuMs and timeoutMs" },
      )
      .optional(),
    mcp: z
      .array(mcpServerSchema(), { error: "expected a list of MCP servers" })
      .max(8, { error: "expected at most 8 MCP servers" })
      .default([]),
    program: z
      .string({ error: "expected the name of a program in src/programs/" })
      .regex(/^[a-z][a-z0-9-]{0,62}$/, { error: "expected a program name in kebab-case" })
      .optional(),
    dedupeMessages: z.boolean({ error: "expected true or false" }).default(true),
    /** Skills only authenticated callers see: the agent's extended card (spec 1.0.1 §3.1.11). */
    extendedSkills: z
      .array(extendedSkillSchema(), { error: "expected a list of skills" })
      .max(32, { error: "expected at most 32 extended skills" })
      .default([]),
    inputModes: mediaModes().optional(),
    outputModes: mediaModes().optional(),
  };
}

/** Frontmatter after defaults are applied. */
export type AgentFrontmatter = z.output<ReturnType<typeof agentFrontmatterSchema>>;

/** The thinking budget a frontmatter asks for (`true`: the default), or null for none. */
export function thinkingBudget(thinking: AgentFrontmatter["thinking"]): number | null {
  if (thinking === true) return DEFAULT_THINKING_BUDGET;
  if (typeof thinking === "object" && typeof thinking.budgetTokens === "number") {
    return thinking.budgetTokens;
  }
  return null;
}

function isIcon(value: string): boolean {
  if (value.startsWith("https://")) {
    try {
      return new URL(value).protocol === "https:";
    } catch {
      return false;
    }
  }
  return (
    value.length <= 32 &&
    /^[\p{Extended_Pictographic}\p{Emoji_Component}]+$/u.test(value) &&
    /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(value)
  );
}
