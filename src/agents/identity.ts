/**
 * IDENTITY.md parser: YAML frontmatter + markdown system prompt -> AgentDefinition.
 * Contract: pure (no I/O, no clock; imports only yaml, zod, the ./frontmatter.ts, ./identity-*,
 * ./markdown-skills.ts and ./skill-folders.ts modules, ./tool-grants.ts, ./models.ts and the
 * built-in model from ../config/env-schema.ts), so Node scripts can import it directly; every
 * problem is one IdentityError naming the file, the line and column, and the field. Every check
 * lives here or in what it calls (identity-schema.ts per key, identity-checks.ts across keys: the
 * name equals the directory, a known `program` with no model keys beside it, known tool names,
 * the agent's own tools among them), so the build, `npm run dev`, the Worker and admin uploads
 * agree on what is valid; a read-only agent's deny list gains run_code unless the file grants it
 * (tool-grants.ts). The agent's folder adds what the file alone does not hold
 * ({@link AgentExtensions}: the names of its tools in code, its skills), which join its card's
 * skills. A file that names no model gets the deployment's `DEFAULT_MODEL` where its tasks run
 * ({@link withDefaultModel}).
 */
import { BUILT_IN_MODEL } from "../config/env-schema.ts";
import { type Frontmatter, fieldError, readFrontmatter } from "./frontmatter.ts";
import { checkFrontmatter } from "./identity-checks.ts";
import { IdentityError } from "./identity-error.ts";
import {
  type AgentFrontmatter,
  agentFrontmatterSchema,
  type McpServerConfig,
  TOOLS_KEYS,
  thinkingBudget,
} from "./identity-schema.ts";
import {
  type AgentSkill,
  clip,
  extractSkills,
  firstParagraph,
  slug,
  tokenize,
} from "./markdown-skills.ts";
import type { Effort } from "./models.ts";
import type { SkillFolder } from "./skill-folders.ts";
import { effectiveDeny } from "./tool-grants.ts";

export type { AgentSkill };
export { IdentityError };

/**
 * What an agent's folder adds to its IDENTITY.md (none for an agent of a `program`: it answers
 * instead of the model): the names of its tools in code (its own, `agents/<name>/tools/`, and the
 * shared ones) and its Agent Skills (its own and the shared ones, parsed: skill-folders.ts).
 */
export interface AgentExtensions {
  tools?: readonly string[];
  skills?: readonly SkillFolder[];
}

/** A validated agent: frontmatter with defaults resolved, the system prompt, its skills. */
export interface AgentDefinition {
  name: string;
  description: string;
  version: string;
  /**
   * The model its turns run on: the file's `model`; where the file names none
   * (`modelNamed: false`), the deployment's `DEFAULT_MODEL` once {@link withDefaultModel} has
   * applied it (the built-in default until then).
   */
  model: string;
  modelNamed: boolean;
  maxTurns: number;
  maxTokens: number;
  thinking: { budgetTokens: number } | null;
  effort: Effort | null;
  /**
   * `allow: null` means every tool the harness offers; `deny` always wins; `requireApproval`
   * tools wait for a person's yes before each call.
   */
  tools: {
    allow: string[] | null;
    deny: string[];
    requireApproval: string[];
    /** Secrets and vars (strings) of the Worker's environment its tools in code are given. */
    secrets: string[];
    /** Bindings of the Worker's environment its tools in code are given. */
    bindings: string[];
  };
  /** The names of its tools in code: its own and the shared ones (see {@link AgentExtensions}). */
  customTools: string[];
  /** Its Agent Skills: the prompt lists each, the model loads one on demand. */
  skillFolders: SkillFolder[];
  /** Remote MCP servers whose tools join this agent's. */
  mcp: McpServerConfig[];
  /**
   * A deterministic program (src/programs/) that answers instead of the model, or null: the task
   * still runs through the task object, its event log, history, push and both protocols.
   */
  program: string | null;
  /**
   * Whether a resent `messageId` reaches the task it started (spec 1.0.1 §3.1.1: agents MAY use
   * it to detect duplicates); false: every message is new, for clients that reuse message ids.
   */
  dedupeMessages: boolean;
  /** Media types (or ranges such as `image/*`) the card lists as input and output modes; null = the harness's. */
  inputModes: string[] | null;
  outputModes: string[] | null;
  /** run_code: bindings granted to the sandbox, and limits that replace the deployment's. */
  code: { bindings: string[]; cpuMs: number | null; timeoutMs: number | null };
  /** Who may call this agent (null lists = no restriction); admins always may. */
  access: { roles: string[] | null; users: string[] | null };
  tags: string[];
  icon: string | null;
  starters: string[];
  systemPrompt: string;
  skills: AgentSkill[];
  /** Skills only authenticated callers see (frontmatter `extendedSkills`): the extended card. */
  extendedSkills: AgentSkill[];
  file: string;
}

/**
 * Parses and validates one IDENTITY.md (`file` is only used in errors and the result), with what
 * the agent's folder adds (`extensions`).
 */
export function parseIdentity(
  file: string,
  text: string,
  extensions: AgentExtensions = {},
): AgentDefinition {
  const frontmatter = readFrontmatter(file, text);
  const custom = frontmatter.raw.program === undefined ? [...(extensions.tools ?? [])] : [];
  const fm = validateFrontmatter(file, frontmatter, custom);
  const folders = fm.program === undefined ? [...(extensions.skills ?? [])] : [];
  const body = frontmatter.body;
  if (body === "") {
    throw new IdentityError(file, "body", "the system prompt after the frontmatter is empty", {
      line: frontmatter.bodyLine,
      column: 1,
    });
  }
  const blocks = tokenize(body);
  const description = fm.description ?? (clip(firstParagraph(blocks), 1000) || fm.name);
  const budget = thinkingBudget(fm.thinking);
  return {
    name: fm.name,
    description,
    version: fm.version,
    model: fm.model ?? BUILT_IN_MODEL,
    modelNamed: fm.model !== undefined,
    maxTurns: fm.maxTurns,
    maxTokens: fm.maxTokens,
    thinking: budget === null ? null : { budgetTokens: budget },
    effort: fm.effort ?? null,
    tools: toolsOf(fm),
    customTools: custom,
    skillFolders: folders,
    mcp: fm.mcp,
    program: fm.program ?? null,
    dedupeMessages: fm.dedupeMessages,
    inputModes: fm.inputModes ?? null,
    outputModes: fm.outputModes ?? null,
    code: {
      bindings: fm.code?.bindings ?? [],
      cpuMs: fm.code?.cpuMs ?? null,
      timeoutMs: fm.code?.timeoutMs ?? null,
    },
    access: { roles: fm.access?.roles ?? null, users: fm.access?.users ?? null },
    tags: fm.tags,
    icon: fm.icon ?? null,
    starters: fm.starters,
    systemPrompt: body,
    skills: extractSkills(blocks, fm.name, description, fm.tags, fm.starters, folders),
    extendedSkills: fm.extendedSkills.map((skill) => ({
      id: skill.id ?? slug(skill.name),
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples,
    })),
    file,
  };
}

/**
 * The agent as its tasks run it: an agent whose file names no model runs on `defaultModel` (the
 * deployment's `DEFAULT_MODEL`); one that names a model is returned as it is.
 */
export function withDefaultModel(agent: AgentDefinition, defaultModel: string): AgentDefinition {
  return agent.modelNamed || agent.model === defaultModel
    ? agent
    : { ...agent, model: defaultModel };
}

/** The frontmatter's tool lists and grants, defaults resolved. */
function toolsOf(fm: AgentFrontmatter): AgentDefinition["tools"] {
  return {
    allow: fm.tools?.allow ?? null,
    deny: effectiveDeny({
      allow: fm.tools?.allow ?? null,
      deny: fm.tools?.deny ?? [],
      code: fm.code !== undefined,
    }),
    requireApproval: fm.tools?.requireApproval ?? [],
    secrets: fm.tools?.secrets ?? [],
    bindings: fm.tools?.bindings ?? [],
  };
}

function validateFrontmatter(
  file: string,
  frontmatter: Frontmatter,
  custom: readonly string[],
): AgentFrontmatter {
  const { source, doc, raw } = frontmatter;
  const result = agentFrontmatterSchema().safeParse(raw);
  if (result.success) {
    checkFrontmatter(file, source, doc, raw, result.data, custom);
    return result.data;
  }
  const issue = result.error.issues[0];
  if (!issue) throw new IdentityError(file, "frontmatter", "invalid");
  if (issue.code !== "unrecognized_keys")
    throw fieldError(file, frontmatter, issue.path, issue.message);
  const key = issue.keys[0] ?? "";
  const path = issue.path.map(String);
  // The strict objects that can report unknown keys: the root, `tools`, `access` and each `mcp` entry.
  const allowed =
    path.length === 0
      ? Object.keys(agentFrontmatterSchema().shape)
      : path[0] === "mcp"
        ? ["name", "url", "urlVar", "authSecret", "tools"]
        : path[0] === "access"
          ? ["roles", "users"]
          : TOOLS_KEYS;
  const camel = key.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());
  const hint = allowed.find((k) => k.toLowerCase() === camel.toLowerCase());
  const reason = hint
    ? `unknown key (did you mean ${hint}?)`
    : `unknown key; known keys: ${allowed.join(", ")}`;
  throw fieldError(file, frontmatter, issue.path, reason, key);
}
