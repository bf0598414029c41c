/**
 * What a task reads before each model turn: the system prompt's inputs (memory, the workspace's
 * top-level entries, PROGRESS.json's remaining items, the latest handoff) and, when the
 * conversation is over the token budget, a compaction of its older part by the model. Failures
 * here never fail the turn: the prompt says the workspace could not be read, and compaction is
 * skipped until the next turn.
 */

import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../../agents/identity.ts";
import type { Config } from "../../config/config.ts";
import type { HarnessEvent, MemoryAccess } from "../../loop/contracts.ts";
import {
  compactionCut,
  estimateTokens,
  summaryMessage,
  summaryRequest,
} from "../../loop/prompt/compaction.ts";
import { environmentNote } from "../../loop/prompt/environment.ts";
import { type PromptInputs, systemPrompt } from "../../loop/prompt/prompt.ts";
import type { ModelClient } from "../../model/client.ts";
import { addUsage } from "../../model/usage.ts";
import { log } from "../../platform/logging.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import { SUMMARY_HOOK, SUMMARY_KEY } from "../conversation/release-content.ts";
import type { TaskState } from "../runtime/task-state.ts";
import {
  type EnvironmentRead,
  environmentWithoutWorkspace,
  readEnvironment,
  type SessionDeps,
} from "./environment-read.ts";

/**
 * Builds the system prompt for this turn and, when asked, the task's environment note (with the
 * session start, see environment-read.ts). Storage it waits for: none for a new owner (nothing to
 * read yet), none from the workspace object when the task's tools reach no file (`files`: the
 * scratchpad's listing at most), and none for the shared memory once the isolate has its copy; the user's memory comes
 * from the agent's workspace object (with the environment's snapshot, one call, when the
 * workspace is the agent's own). `unreadable`: the workspace could not be read for the note (the
 * task must not go on blind).
 */
export async function buildSystemPrompt(input: {
  agent: AgentDefinition;
  tools: readonly string[];
  /** The task's workspace (its root agent's, for the owner). */
  workspace: WorkspaceApi;
  /** Whether that workspace is the agent's own (its object also keeps the agent's memory). */
  ownWorkspace: boolean;
  memory: MemoryAccess;
  config: Config;
  delegation?: PromptInputs["delegation"];
  /** Read the workspace for the environment note (a task's first step). */
  withEnvironment: boolean;
  /** The owner is new with this task: no workspace, no memory of its own. */
  newOwner: boolean;
  /** The task's tools reach its workspace (files, state files, memory, the sandbox, sub-agents). */
  files: boolean;
  session: SessionDeps;
}): Promise<{ system: TextBlockParam[]; environment: string | null; unreadable?: string }> {
  const [shared, own] = await Promise.all([
    input.memory.shared().catch(() => null),
    ownContext(input),
  ]);
  const inputs: PromptInputs = {
    agent: input.agent,
    tools: input.tools,
    memory: { shared, user: own.user },
    environment: own.ok ? own.environment : null,
    now: new Date(),
    timeZone: input.config.timeZone,
    ...(input.delegation ? { delegation: input.delegation } : {}),
  };
  return {
    system: systemPrompt(inputs),
    environment: input.withEnvironment ? environmentNote(inputs) : null,
    ...(own.ok ? {} : { unreadable: own.error }),
  };
}

/** The user's memory and, when asked, the environment. */
async function ownContext(
  input: Parameters<typeof buildSystemPrompt>[0],
): Promise<EnvironmentRead> {
  const empty = { entries: [], total: 0, remaining: [], handoff: null };
  if (input.newOwner) return { ok: true, user: null, environment: empty };
  if (!input.files)
    return input.withEnvironment
      ? environmentWithoutWorkspace(input.session)
      : { ok: true, user: null, environment: empty };
  if (!input.withEnvironment)
    return {
      ok: true,
      user: await input.memory.user().catch(() => null),
      environment: { entries: [], total: 0, remaining: [], handoff: null },
    };
  return readEnvironment(input);
}

/** What compaction reads and changes in the task. */
export type CompactingTask = Pick<
  TaskState,
  "unit" | "conversation" | "loopState" | "hookState" | "store" | "modelCalls"
>;

/**
 * Compacts the task's conversation when it is over `budget` tokens: the model summarises the
 * older part, which is replaced by the note. When the replaced part held turns of the
 * conversation (context), the note is kept for the release so the context shrinks too.
 * Returns true when it compacted.
 */
export async function compactIfNeeded(input: {
  task: CompactingTask;
  client: ModelClient;
  agent: AgentDefinition;
  system: TextBlockParam[];
  /** The length of the tools' definitions as JSON ({@link ToolRegistry.definitionChars}). */
  toolChars: number;
  budget: number;
  signal: AbortSignal;
  emit(event: HarnessEvent): void;
}): Promise<boolean> {
  const { task } = input;
  const rows = task.conversation.rows();
  const messages = rows.map((r) => r.message);
  const fixed = estimateTokens(input.system) + Math.ceil(input.toolChars / 4);
  const cut = compactionCut(messages, input.budget, fixed);
  if (cut === null) return false;
  const replaced = messages.slice(0, cut);
  let note: string;
  try {
    const startedAt = Date.now();
    const response = await input.client.messages.create(
      summaryRequest(input.agent.model, replaced),
      { signal: input.signal },
    );
    note = response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    const spent = {
      inputTokens: response.usage.input_tokens,
      outputTokens: response.usage.output_tokens,
      cacheReadTokens: response.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: response.usage.cache_creation_input_tokens ?? 0,
    };
    const loop = task.loopState.get();
    task.unit.run(() => {
      task.loopState.patch({ usage: addUsage(loop.usage, spent) });
      task.modelCalls.record({
        ...spent,
        kind: "compaction",
        turn: loop.turn,
        attempt: 0,
        model: input.agent.model,
        startedAt,
        endedAt: Date.now(),
        stopReason: response.stop_reason,
        error: null,
      });
    });
  } catch (error) {
    log("warn", "compaction skipped", { task: task.store.record?.id, error: String(error) });
    return false;
  }
  const summary = summaryMessage(note, replaced.length);
  const keepFrom = (rows[cut] as { idx: number }).idx;
  const through = Math.max(-1, ...rows.slice(0, cut).map((r) => r.contextSeq ?? -1));
  const before = estimateTokens(messages);
  task.unit.run(() => {
    task.conversation.replacePrefix(keepFrom, summary);
    if (through >= 0) task.hookState.set(SUMMARY_HOOK, SUMMARY_KEY, { through, message: summary });
  });
  const after = estimateTokens(task.conversation.load());
  input.emit({
    kind: "compaction",
    text: `Summarised ${replaced.length} earlier messages (about ${before} -> ${after} tokens)`,
    detail: `${replaced.length} messages, ~${before} -> ~${after} tokens`,
  });
  return true;
}
