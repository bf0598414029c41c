/**
 * IDENTITY.md parser: YAML frontmatter + markdown system prompt -> AgentDefinition.
 * Contract: pure (no I/O, no clock; imports only yaml, the ./identity-* and ./markdown-skills.ts
 * modules, ./tool-grants.ts, ./models.ts and the built-in model from ../config/env-schema.ts), so
 * Node scripts can import it directly; every problem is one IdentityError naming the file, the
 * line and column, and the field. Every check lives here or in what it calls (identity-schema.ts
 * per key, identity-checks.ts across keys: the name equals the directory, a known `program` with
 * no model keys beside it, known tool names), so the build, `npm run dev`, the Worker and admin
 * uploads agree on what is valid; a read-only agent's deny list gains run_code unless the file
 * grants it (tool-grants.ts). A file that names no model gets the deployment's `DEFAULT_MODEL`
 * where its tasks run ({@link withDefaultModel}).
 */
import { type Document, parseDocument } from "yaml";
import { BUILT_IN_MODEL } from "../config/env-schema.ts";
import { checkFrontmatter } from "./identity-checks.ts";
import { IdentityError } from "./identity-error.ts";
import { positionAt, positionOf } from "./identity-position.ts";
import {
  type AgentFrontmatter,
  AgentFrontmatterSchema,
  type McpServerConfig,
  thinkingBudget,
} from "./identity-schema.ts";
import {
  type AgentSkill,
  clip,
  extractSkills,
  firstParagraph,
  tokenize,
} from "./markdown-skills.ts";
import type { Effort } from "./models.ts";
import { effectiveDeny } from "./tool-grants.ts";

export type { AgentSkill };
export { IdentityError };

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
  tools: { allow: string[] | null; deny: string[]; requireApproval: string[] };
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
  file: string;
}

/** Parses and validates one IDENTITY.md (`file` is only used in errors and the result). */
export function parseIdentity(file: string, text: string): AgentDefinition {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  if (lines[0]?.trimEnd() !== "---") {
    throw new IdentityError(
      file,
      "frontmatter",
      "missing; the file must start with a '---' line, then YAML, then a closing '---' line",
      { line: 1, column: 1 },
    );
  }
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close < 0) {
    throw new IdentityError(file, "frontmatter", "not closed; add a '---' line after the YAML", {
      line: 1,
      column: 1,
    });
  }
  const source = lines.slice(1, close).join("\n");
  const fm = validateFrontmatter(file, source, readYaml(file, source));
  const body = lines
    .slice(close + 1)
    .join("\n")
    .trim();
  if (body === "") {
    throw new IdentityError(file, "body", "the system prompt after the frontmatter is empty", {
      line: close + 2,
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
    tools: {
      allow: fm.tools?.allow ?? null,
      deny: effectiveDeny({
        allow: fm.tools?.allow ?? null,
        deny: fm.tools?.deny ?? [],
        code: fm.code !== undefined,
      }),
      requireApproval: fm.tools?.requireApproval ?? [],
    },
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
    skills: extractSkills(blocks, fm.name, description, fm.tags, fm.starters),
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

function readYaml(file: string, source: string): Document {
  const doc = parseDocument(source, { uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const reason = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:$/, "");
    throw new IdentityError(
      file,
      null,
      `invalid YAML in frontmatter: ${reason}`,
      positionAt(source, error.pos[0]),
    );
  }
  return doc;
}

function validateFrontmatter(file: string, source: string, doc: Document): AgentFrontmatter {
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new IdentityError(file, "frontmatter", "expected a YAML mapping of keys to values", {
      line: 2,
      column: 1,
    });
  }
  const result = AgentFrontmatterSchema.safeParse(raw);
  if (result.success) {
    checkFrontmatter(file, source, doc, raw as Record<string, unknown>, result.data);
    return result.data;
  }
  const issue = result.error.issues[0];
  if (!issue) throw new IdentityError(file, "frontmatter", "invalid");
  const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
  let reason = issue.message;
  let key: string | undefined;
  if (issue.code === "unrecognized_keys") {
    key = issue.keys[0] ?? "";
    // The strict objects that can report unknown keys: the root, `tools` and each `mcp` entry.
    const allowed =
      path.length === 0
        ? Object.keys(AgentFrontmatterSchema.shape)
        : path[0] === "mcp"
          ? ["name", "url", "urlVar", "authSecret", "tools"]
          : path[0] === "access"
            ? ["roles", "users"]
            : ["allow", "deny", "requireApproval"];
    const camel = key.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());
    const hint = allowed.find((k) => k.toLowerCase() === camel.toLowerCase());
    reason = hint
      ? `unknown key (did you mean ${hint}?)`
      : `unknown key; known keys: ${allowed.join(", ")}`;
  }
  const position = positionOf(doc, source, path, key);
  const field = ["frontmatter", ...path, ...(key === undefined ? [] : [key])].join(".");
  throw new IdentityError(file, field, reason, position);
}
