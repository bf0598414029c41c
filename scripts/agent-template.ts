/**
 * What `npm run new-agent <name> [--tool <tool>] [--skill <skill>]` writes: the IDENTITY.md (the
 * smallest valid file plus every optional key of the frontmatter schema commented out with its
 * default or an example, and which keys exclude others (`program`, the exclusive one, as
 * `#program:`); with a tool, the grant of its secrets), a tool in code that calls an HTTP API with
 * a secret, and an Agent Skill. Contract: pure (no I/O); scripts/new-agent.ts writes them, and
 * their tests hold the template's keys equal to the schema's, parse it with every optional key
 * uncommented and with `program` alone, and parse, type-check and run the tool and the skill.
 */

import { customToolNameProblem } from "../src/agents/tool-names.ts";

/** Why `name` cannot be a new agent's name (kebab-case, as the frontmatter's `name`), or null. */
export function agentNameProblem(name: string | undefined): string | null {
  if (name === undefined || name === "")
    return "usage: npm run new-agent <name> (kebab-case, e.g. reviewer)";
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(name))
    return `"${name}" is not an agent name: a lowercase letter, then lowercase letters, digits or '-' (at most 63)`;
  return null;
}

/**
 * Why `name` cannot be a new tool's name (as its file's), or null: one the build takes
 * (customToolNameProblem) and that makes upper-case names of its secrets (no '-').
 */
export function toolNameProblem(name: string | undefined): string | null {
  if (name === undefined || !/^[a-z][a-z0-9_]{0,63}$/.test(name) || name.includes("__"))
    return `"${name ?? ""}" is not a tool name: a lowercase letter, then lowercase letters, digits or single '_' (at most 64)`;
  return customToolNameProblem(name);
}

/** Why `name` cannot be a skill's name, or null. */
export function skillNameProblem(name: string | undefined): string | null {
  if (name === undefined || !/^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/.test(name))
    return `"${name ?? ""}" is not a skill name: lowercase letters, digits and single '-' (at most 64)`;
  return null;
}

/** The secret (`key`) and var (`url`) the tool `tool` reads: `<TOOL>_API_KEY`, `<TOOL>_API_URL`. */
export function toolSecrets(tool: string): { key: string; url: string } {
  const base = tool.toUpperCase().replace(/-/g, "_");
  return { key: `${base}_API_KEY`, url: `${base}_API_URL` };
}

/** The new agent's IDENTITY.md; with `tool`, granting that tool's secret and URL. */
export function agentTemplate(name: string, options: { tool?: string } = {}): string {
  const grant = options.tool === undefined ? "" : toolGrant(options.tool);
  return `---
# agents/${name}/IDENTITY.md: this agent's card (the YAML) and its system prompt (the Markdown
# below). Reference: README.md#agents. Required: name, and a non-empty prompt.
name: ${name}                      # required: equal to the directory's name
description: What ${name} does, in one sentence (its card and the console show it).
${grant}# Optional (uncomment to change; each shows its default or an example):
# version: 1.0.0
# model: claude-sonnet-4-6       # default: the deployment's DEFAULT_MODEL
# maxTurns: 50                   # the lower of this and MAX_TURNS applies
# maxTokens: 8192
# thinking: true                 # true (4096 tokens), false, or { budgetTokens: 8000 }; below maxTokens
# effort: high                   # low | medium | high | max, as the model takes it
# tools:                         # default: every tool of the harness; deny wins over allow
#   allow: [read_file, list_files, grep_files, search, web_fetch]   # only these (tools or domains)
#   deny: [write_file, edit_file]
#   requireApproval: [checkpoint_restore]   # a person says yes before each call
# tags: [review]                 # default: the agent's name
# icon: "🧭"                     # an emoji or an https:// URL
# starters: ["What can you do?"] # at most 8: chips on an empty console conversation
# inputModes: [text/plain]       # media types parts may have; default: the harness's
# outputModes: [text/plain, text/markdown]
# dedupeMessages: true           # false: a reused messageId is a new message
# access: { roles: [user, admin] }   # who may call it; default: everyone who may call the harness
# code: { cpuMs: 2000, timeoutMs: 20000, bindings: [] }   # run_code's limits and the bindings it may use
# mcp:                           # remote MCP servers (streamable HTTP); tools join as <name>__<tool>
#   - { name: docs, urlVar: DOCS_MCP_URL, authSecret: DOCS_MCP_TOKEN, tools: [search] }
# extendedSkills:                # skills only authenticated callers see (an extended card)
#   - { name: Billing, description: Reads the account's invoices, tags: [billing] }
# Exclusive (not with model, thinking, effort, tools, mcp or code): a deterministic program of
# src/programs/ answers instead of the model. A model-driven agent has no program key.
#program: conformance
---

You are ${name}. Say here, in the second person, what you do, for whom, and how you work: this
text is your system prompt. The first paragraph is the card's description when the frontmatter
gives none.

## Skills

### ${title(name)}
One line on one thing you do; each \`###\` entry under \`## Skills\` is a skill on your card.
`;
}

/** The frontmatter lines that grant the tool its secret and URL (tools/<tool>.ts reads them). */
function toolGrant(tool: string): string {
  const { key, url } = toolSecrets(tool);
  return `tools:                             # what its tools in code are given (context.secrets)
  secrets: [${url}, ${key}]        # read by tools/${tool}.ts
`;
}

/** agents/<agent>/tools/<tool>.ts: a tool that calls an HTTP API with a secret. */
export function toolTemplate(agent: string, tool: string): string {
  const { key, url } = toolSecrets(tool);
  return `/**
 * Tool ${tool} of agent ${agent}: looks a query up in your HTTP API and gives the model its answer.
 * It sends GET <${url}>?q=<query> with the header Authorization: Bearer <${key}>,
 * through the harness's SSRF guard (context.fetch). Set both where the Worker reads them:
 *   deployed: npx wrangler secret put ${key}  (and ${url} in wrangler.toml [vars])
 *   locally:  ${key}=... and ${url}=https://... in .dev.vars
 * agents/${agent}/IDENTITY.md grants them to this agent's tools (tools.secrets); no other
 * secret reaches a tool. Reference: docs/harness.md#extending-an-agent.
 */
import { z } from "zod";

import { defineAgentTool } from "#harness/tool";

/** The secret and the var this tool reads (granted in IDENTITY.md, tools.secrets). */
const KEY = "${key}";
const API_URL = "${url}";
/** Most characters of the API's answer the model reads. */
const MAX_CHARS = 8_000;

export default defineAgentTool({
  name: "${tool}",
  description:
    "Looks up a query in the team's API and returns its answer. Use it when the user asks about something the API knows.",
  input: z.strictObject({
    query: z.string().trim().min(1).max(200).describe("What to look up."),
  }),
  async run({ query }, context) {
    const base = context.secrets[API_URL];
    const key = context.secrets[KEY];
    if (!base || !key)
      return {
        content: \`Not set up: set \${API_URL} and \${KEY} (see the tool's file).\`,
        isError: true,
      };
    const url = new URL(base);
    url.searchParams.set("q", query);
    const response = await context.fetch(url, {
      headers: { Authorization: \`Bearer \${key}\`, Accept: "application/json, text/plain" },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok)
      return { content: \`The API answered HTTP \${response.status}.\`, isError: true };
    const text = await response.text();
    if (text.length <= MAX_CHARS) return text;
    return \`\${text.slice(0, MAX_CHARS)}\\n[cut at \${MAX_CHARS} characters]\`;
  },
});
`;
}

/** agents/<agent>/skills/<skill>/SKILL.md: an Agent Skill to fill in. */
export function skillTemplate(skill: string): string {
  return `---
name: ${skill}
description: What this skill does and when to use it, in one or two sentences. The model reads only this (and the name) until it loads the skill, so name the tasks it is for.
---

# ${title(skill)}

The instructions the model follows once it loads this skill (skill_load): the steps, in order;
an example of a good result; the mistakes to avoid. Keep this file short (under 500 lines) and
put long material in files beside it, such as references/GUIDE.md, named here by their relative
paths: the model reads one with skill_read when these instructions send it there.
`;
}

function title(name: string): string {
  const words = name.split("-").filter(Boolean).join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
