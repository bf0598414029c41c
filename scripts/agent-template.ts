/**
 * The IDENTITY.md that `npm run new-agent <name>` writes: the smallest valid file plus every
 * optional key of the frontmatter schema commented out with its default or an example, and which
 * keys exclude others (`program`, the exclusive one, as `#program:`). Contract: pure (no I/O);
 * scripts/new-agent.ts writes it, and its test holds its keys equal to the schema's and parses it
 * with every optional key uncommented, and with `program` alone.
 */

/** Why `name` cannot be a new agent's name (kebab-case, as the frontmatter's `name`), or null. */
export function agentNameProblem(name: string | undefined): string | null {
  if (name === undefined || name === "")
    return "usage: npm run new-agent <name> (kebab-case, e.g. reviewer)";
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(name))
    return `"${name}" is not an agent name: a lowercase letter, then lowercase letters, digits or '-' (at most 63)`;
  return null;
}

/** The new agent's IDENTITY.md. */
export function agentTemplate(name: string): string {
  return `---
# agents/${name}/IDENTITY.md: this agent's card (the YAML) and its system prompt (the Markdown
# below). Reference: README.md#agents. Required: name, and a non-empty prompt.
name: ${name}                      # required: equal to the directory's name
description: What ${name} does, in one sentence (its card and the console show it).
# Optional (uncomment to change; each shows its default or an example):
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

function title(name: string): string {
  const words = name.split("-").filter(Boolean).join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
