/**
 * IDENTITY.md parser: YAML frontmatter + markdown system prompt -> AgentDefinition.
 * Contract: pure (no I/O, no clock, no relative imports) so Node scripts can import it
 * directly; every problem is thrown as one IdentityError naming the file and the field.
 */
import { parseDocument } from "yaml";
import { z } from "zod";

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
const toolNames = stringList(
  z.string({ error: toolNameError }).regex(/^[a-z][a-z0-9_-]*$/, { error: toolNameError }),
  "expected a list of tool names",
);
const budgetError = "expected an integer of at least 1024";

/** Schema of the YAML frontmatter; unknown keys are errors (camelCase names only). */
export const AgentFrontmatterSchema = z
  .strictObject({
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
    model: nonEmpty(200).default("claude-sonnet-4-6"),
    maxTurns: intBetween(1, 500).default(50),
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
    effort: z.enum(["low", "medium", "high"], { error: "expected low, medium or high" }).optional(),
    tools: z
      .strictObject(
        { allow: toolNames.optional(), deny: toolNames.optional() },
        { error: "expected a mapping with optional allow and deny lists" },
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
  })
  .superRefine((fm, ctx) => {
    const budget = thinkingBudget(fm.thinking);
    if (budget !== null && typeof fm.maxTokens === "number" && budget >= fm.maxTokens) {
      ctx.addIssue({
        code: "custom",
        path: typeof fm.thinking === "object" ? ["thinking", "budgetTokens"] : ["thinking"],
        message: `the thinking budget (${budget} tokens) must be less than maxTokens (${fm.maxTokens})`,
      });
    }
  });

/** Frontmatter after defaults are applied. */
export type AgentFrontmatter = z.output<typeof AgentFrontmatterSchema>;

/** One A2A AgentSkill derived from the markdown body. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
}

/** A validated agent: frontmatter with defaults resolved, the system prompt, its skills. */
export interface AgentDefinition {
  name: string;
  description: string;
  version: string;
  model: string;
  maxTurns: number;
  maxTokens: number;
  thinking: { budgetTokens: number } | null;
  effort: "low" | "medium" | "high" | null;
  /** `allow: null` means every tool the harness offers; `deny` always wins. */
  tools: { allow: string[] | null; deny: string[] };
  tags: string[];
  icon: string | null;
  starters: string[];
  systemPrompt: string;
  skills: AgentSkill[];
  file: string;
}

/** Thrown for any invalid IDENTITY.md; `message` reads `<file>: <field>: <reason>`. */
export class IdentityError extends Error {
  readonly file: string;
  /** Dotted path such as `frontmatter.tools.deny.0`, `body`, or null for YAML syntax errors. */
  readonly field: string | null;

  constructor(file: string, field: string | null, reason: string) {
    super(field === null ? `${file}: ${reason}` : `${file}: ${field}: ${reason}`);
    this.name = "IdentityError";
    this.file = file;
    this.field = field;
  }
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
    );
  }
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close < 0) {
    throw new IdentityError(file, "frontmatter", "not closed; add a '---' line after the YAML");
  }
  const fm = validateFrontmatter(file, readYaml(file, lines.slice(1, close).join("\n")));
  const body = lines
    .slice(close + 1)
    .join("\n")
    .trim();
  if (body === "") {
    throw new IdentityError(file, "body", "the system prompt after the frontmatter is empty");
  }
  const blocks = tokenize(body);
  const description = fm.description ?? (clip(firstParagraph(blocks), 1000) || fm.name);
  const budget = thinkingBudget(fm.thinking);
  return {
    name: fm.name,
    description,
    version: fm.version,
    model: fm.model,
    maxTurns: fm.maxTurns,
    maxTokens: fm.maxTokens,
    thinking: budget === null ? null : { budgetTokens: budget },
    effort: fm.effort ?? null,
    tools: { allow: fm.tools?.allow ?? null, deny: fm.tools?.deny ?? [] },
    tags: fm.tags,
    icon: fm.icon ?? null,
    starters: fm.starters,
    systemPrompt: body,
    skills: extractSkills(blocks, fm.name, description, fm.tags, fm.starters),
    file,
  };
}

function readYaml(file: string, source: string): unknown {
  const doc = parseDocument(source, { uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const reason = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:$/, "");
    const pos = error.linePos?.[0];
    // The YAML starts on line 2 of the file, after the opening '---'.
    const where = pos ? ` at line ${pos.line + 1}, column ${pos.col}` : "";
    throw new IdentityError(file, null, `invalid YAML in frontmatter${where}: ${reason}`);
  }
  return doc.toJS() ?? {};
}

function validateFrontmatter(file: string, raw: unknown): AgentFrontmatter {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new IdentityError(file, "frontmatter", "expected a YAML mapping of keys to values");
  }
  const result = AgentFrontmatterSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new IdentityError(file, "frontmatter", "invalid");
  const path = issue.path.map(String);
  let reason = issue.message;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    // Only the root and `tools` are strict objects that can report unknown keys.
    const allowed =
      path.length === 0 ? Object.keys(AgentFrontmatterSchema.shape) : ["allow", "deny"];
    const camel = key.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());
    const hint = allowed.find((k) => k.toLowerCase() === camel.toLowerCase());
    reason = hint
      ? `unknown key (did you mean ${hint}?)`
      : `unknown key; known keys: ${allowed.join(", ")}`;
    path.push(key);
  }
  throw new IdentityError(file, ["frontmatter", ...path].join("."), reason);
}

function thinkingBudget(thinking: AgentFrontmatter["thinking"]): number | null {
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

/** A heading (level 1-6), a raw text line (level 0), or null for a paragraph break. */
type Block = { heading: number; text: string } | null;

function tokenize(body: string): Block[] {
  const out: Block[] = [];
  let fence: string | null = null;
  for (const line of body.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(null);
      continue;
    }
    const heading = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
    if (heading) out.push({ heading: heading[1]?.length ?? 1, text: plain(heading[2] ?? "") });
    else if (/^\s*$|^ {0,3}([-*_])( *\1){2,} *$|^\s*<!--.*-->\s*$/.test(line)) out.push(null);
    else out.push({ heading: 0, text: line });
  }
  return out;
}

/** Paragraphs (joined lines, plain text) in `blocks`; headings also end a paragraph. */
function paragraphs(blocks: Block[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  for (const block of [...blocks, null]) {
    if (block !== null && block.heading === 0) {
      current.push(block.text.replace(/^\s*(?:[-*+>]|\d+[.)])\s+/, ""));
    } else if (current.length > 0) {
      out.push(plain(current.join(" ")));
      current = [];
    }
  }
  return out.filter((p) => p !== "");
}

function firstParagraph(blocks: Block[]): string {
  return paragraphs(blocks)[0] ?? "";
}

/** Blocks after `start` up to the next heading of level <= `level`. */
function sectionAt(blocks: Block[], start: number, level: number): Block[] {
  const end = blocks.findIndex(
    (b, i) => i > start && b !== null && b.heading > 0 && b.heading <= level,
  );
  return blocks.slice(start + 1, end < 0 ? blocks.length : end);
}

function skillsFromSection(section: Block[]): Array<[string, string]> {
  const h3s = section.flatMap((b, i) => (b?.heading === 3 ? [i] : []));
  if (h3s.length > 0) {
    return h3s.map((i) => {
      const name = section[i]?.text ?? "";
      return [name, paragraphs(sectionAt(section, i, 6)).join(" ") || name];
    });
  }
  const items: string[][] = [];
  let open = false;
  for (const block of section) {
    if (block === null || block.heading > 0) {
      open = false;
    } else if (/^[-*+]\s+/.test(block.text)) {
      items.push([block.text.replace(/^[-*+]\s+/, "")]);
      open = true;
    } else if (open || /^\s/.test(block.text)) {
      items.at(-1)?.push(block.text.trim().replace(/^[-*+]\s+/, ""));
    }
  }
  return items.flatMap((item) => {
    const match = /^(.+?)(?::\s+|\s+[—–-]\s+)(.+)$/.exec(plain(item.join(" ")));
    return match?.[1] && match[2] ? [[match[1], match[2]] as [string, string]] : [];
  });
}

function extractSkills(
  blocks: Block[],
  agentName: string,
  agentDescription: string,
  tags: string[],
  starters: string[],
): AgentSkill[] {
  const h2s = blocks.flatMap((b, i) => (b?.heading === 2 ? [i] : []));
  const skillsAt = h2s.find((i) => blocks[i]?.text.toLowerCase() === "skills");
  let found = skillsAt === undefined ? [] : skillsFromSection(sectionAt(blocks, skillsAt, 2));
  if (found.length === 0) {
    found = h2s
      .filter((i) => i !== skillsAt)
      .map((i) => {
        const name = blocks[i]?.text ?? "";
        return [name, firstParagraph(sectionAt(blocks, i, 2)) || name];
      });
  }
  if (found.length === 0) found = [[agentName, agentDescription]];
  const used = new Set<string>();
  return found.map(([name, description], index) => {
    const base = slug(name);
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    return {
      id,
      name: clip(name, 200) || id,
      description: clip(description, 1000),
      tags: [...tags],
      examples: index === 0 ? [...starters] : [],
    };
  });
}

/** Markdown inline syntax stripped: links, images, code, emphasis; whitespace collapsed. */
function plain(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/<(https?:\/\/[^>\s]+)>/g, "$1")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/\*(?=\S)(.+?)(?<=\S)\*/g, "$1")
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, "$1$2")
    .replace(/~~(.+?)~~/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1).trimEnd()}…`;
}

function slug(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return base || "skill";
}
