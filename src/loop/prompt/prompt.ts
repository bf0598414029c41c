/**
 * Assembles what a model turn is told besides the conversation, ordered for prompt caching: the
 * system prompt's stable part (the agent's identity, how to work in this harness, the
 * verification protocol, session continuity, the enabled tools, the agent's skills by name and
 * description) with a cache breakpoint, then
 * memory (CONTEXT.md, changes rarely) with a breakpoint. The task's environment note
 * (environment.ts) goes into the conversation in front of the task's first message instead, so
 * that it does not break the cached prefix. Guidance only mentions tools the agent has. Pure: no
 * I/O.
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../../agents/identity.ts";
import type { SubagentType } from "../contracts.ts";
import type { EnvironmentInputs } from "./environment.ts";
import { skillsSection } from "./skills.ts";

/** Everything the prompt is made of (the environment note's inputs too). */
export interface PromptInputs extends EnvironmentInputs {
  agent: AgentDefinition;
  tools: readonly string[];
  memory: { shared: string | null; user: string | null };
  /** The sub-agents this task may call, or, for a sub-agent's own task, who called it. */
  delegation?: { subagents: SubagentType[] } | { calledBy: string };
}

const CACHE = { type: "ephemeral" } as const;

function delegation(inputs: PromptInputs): string[] {
  const d = inputs.delegation;
  if (!d) return [];
  if ("calledBy" in d) {
    return [
      "",
      "## You are a sub-agent",
      `The ${d.calledBy} agent started you for one piece of work: the message you got is all you know of its conversation. You cannot ask the user; if something is missing, say so in your answer.`,
      "Your final answer goes back to it as a tool result, so keep it condensed: the direct answer first, then bullets; cite sources as path:line or URLs; no raw dumps or pasted pages. Stay under about 2,000 words unless the work asks for more. Put long material in the scratchpad and give its path.",
    ];
  }
  if (d.subagents.length === 0 || !inputs.tools.includes("task")) return [];
  return [
    "",
    "## Sub-agents",
    "Delegate focused work with the task tool; each sub-agent sees only your prompt and the scratchpad you share for this task (scratch_write, scratch_read, scratch_list):",
    ...d.subagents.map((s) => `- ${s.name}: ${s.description}`),
    "Tell each one where to write its results in the scratchpad; read them there instead of asking for long answers. Check what comes back before you rely on it.",
    ...(inputs.tools.includes("write_todos")
      ? [
          'In your plan (write_todos), tag each step you delegate with the agent that does it: "[agent] step", e.g. "[researcher] Find three sources on X".',
        ]
      : []),
  ];
}

function guidance(tools: readonly string[]): string {
  const has = (name: string) => tools.includes(name);
  const verify = [
    "## Before you finish",
    "Before you report on work that produced anything (code, documents, analysis):",
    "1. Re-read the original request and any instructions you were given.",
    "2. Check each requirement against what you did, item by item; check what can be checked (counts, calculations, links, files that must parse).",
    has("run_code")
      ? "3. If you wrote code, run it with run_code (or its tests, with mode test) and fix what fails."
      : "3. If you wrote code, check it for obvious errors.",
    has("read_file")
      ? `4. If you created or changed files, re-read them (read_file${has("grep_files") ? ", or grep_files for a large one" : ""}) to confirm they are correct.`
      : has("grep_files")
        ? "4. If you created or changed files, search them (grep_files) to confirm they are correct."
        : "4. If you created or changed files, look over each change again.",
    "5. Only then report: say what you verified and how, and say plainly what you could not verify.",
  ];
  const continuity = [
    "## Continuing work",
    "- The environment note before the task's first message says what the harness found at the start of this session: damaged state files (restore or rewrite them), tests that passed before and fail now (fix those first), the recent changes and the handoff.",
    ...(has("progress_read")
      ? [
          "- Start by reading the state of the work (progress_read) and the handoff note; do not redo finished work.",
          "- Keep PROGRESS.json current with progress_update after each meaningful step and before you finish: what is done, what remains, decisions with their reasons, blockers; for the next session, important notes, where to continue (path:line) and a short summary.",
        ]
      : [
          "- Start from the handoff note in the environment note before the task's first message, if there is one; do not redo finished work.",
        ]),
    ...(has("feature_update")
      ? [
          `- Record the features of the work with the tests that prove each (feature_update)${has("run_code") ? ", and run a feature's tests with run_code (mode test, feature: its id): the next session runs the passing ones again" : ""}.`,
        ]
      : []),
    ...(has("write_todos")
      ? ["- For work of more than three steps, keep a plan with write_todos."]
      : []),
    ...(has("memory_write")
      ? [
          "- Save lasting facts about the user or their project with memory_write; leave out transient details.",
        ]
      : []),
    ...(has("ask_user")
      ? [
          "- When you cannot go on without a decision or a fact only the user has, ask with ask_user (one clear question); do not ask what you can find out yourself.",
        ]
      : []),
  ];
  const toolLine =
    tools.length > 0
      ? `Tools you can use: ${tools.join(", ")}.`
      : "You have no tools in this deployment; answer from what you know.";
  return [
    "# Working in this harness",
    "You run as a task of an A2A agent harness. Your answer is streamed to the client as you write it. Tool calls and the harness's notes appear on the task's stream.",
    toolLine,
    "",
    ...verify,
    "",
    ...continuity,
  ].join("\n");
}

/**
 * The system prompt as cache-ordered text blocks, each with a cache breakpoint: the agent's prompt
 * with the harness's guidance, then memory. Nothing in it changes from turn to turn unless memory
 * does; the task's environment goes into the conversation ({@link environmentNote}).
 */
export function systemPrompt(inputs: PromptInputs): TextBlockParam[] {
  const blocks: TextBlockParam[] = [
    {
      type: "text",
      text: [
        inputs.agent.systemPrompt,
        "",
        guidance(inputs.tools),
        ...delegation(inputs),
        ...skillsSection(inputs.agent.skillFolders, inputs.tools),
      ].join("\n"),
      cache_control: CACHE,
    },
  ];
  const memory = [
    inputs.memory.shared?.trim() ? `## Shared memory\n${inputs.memory.shared.trim()}` : "",
    inputs.memory.user?.trim() ? `## Your memory for this user\n${inputs.memory.user.trim()}` : "",
  ].filter((m) => m !== "");
  if (memory.length > 0)
    blocks.push({
      type: "text",
      text: `# Memory (CONTEXT.md)\n${memory.join("\n\n")}`,
      cache_control: CACHE,
    });
  return blocks;
}
