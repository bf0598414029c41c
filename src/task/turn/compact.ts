/**
 * Compaction of a turn's conversation: when the conversation, with the turn's system prompt and
 * tools, is over the token budget (`CONTEXT_TOKEN_BUDGET`), the model summarises its older part
 * (loop/prompt/compaction.ts says where to cut and how to ask), which is replaced by the note; the
 * call's tokens count in the task's usage like any model call's. When the replaced part held
 * turns of the conversation (context), the note is kept for the release so the context shrinks
 * too. A summary that fails is skipped until the next turn: it never fails the turn.
 */
import type { ChatMessage } from "../../loop/chat-message.ts";
import {
  compactionCut,
  estimateTokens,
  summaryMessage,
  summaryRequest,
} from "../../loop/prompt/compaction.ts";
import { modelClient } from "../../model/client.ts";
import { addUsage, callUsage } from "../../model/usage.ts";
import { log } from "../../platform/logging.ts";
import { SUMMARY_HOOK, SUMMARY_KEY } from "../conversation/release-content.ts";
import { requestKeeper } from "./request-keeper.ts";
import type { Turn } from "./turn.ts";

/**
 * Compacts `turn`'s conversation when it is over the budget (and a model is configured to write
 * the summary). Returns true when it compacted.
 */
export async function compactIfNeeded(turn: Turn): Promise<boolean> {
  const { task, config } = turn;
  if (config.modelMode === "unconfigured") return false;
  const rows = task.conversation.rows();
  const messages = rows.map((r) => r.message);
  const fixed = estimateTokens(turn.system) + Math.ceil(turn.tools.definitionChars() / 4);
  const cut = compactionCut(messages, config.contextTokenBudget, fixed);
  const kept = cut === null ? undefined : rows[cut];
  if (cut === null || kept === undefined) return false;
  const replaced = messages.slice(0, cut);
  const note = await summarise(turn, replaced);
  if (note === null) return false;
  const summary = summaryMessage(note, replaced.length);
  const through = Math.max(-1, ...rows.slice(0, cut).map((r) => r.contextSeq ?? -1));
  const before = estimateTokens(messages);
  task.unit.run(() => {
    task.conversation.replacePrefix(kept.idx, summary);
    if (through >= 0) task.hookState.set(SUMMARY_HOOK, SUMMARY_KEY, { through, message: summary });
  });
  const after = estimateTokens(task.conversation.load());
  task.emitHarnessEvent({
    kind: "compaction",
    text: `Summarised ${replaced.length} earlier messages (about ${before} -> ${after} tokens)`,
    detail: `${replaced.length} messages, ~${before} -> ~${after} tokens`,
  });
  return true;
}

/**
 * The model's note of `replaced`, its tokens counted in the task's usage and recorded as a
 * compaction call; null when the call failed.
 */
async function summarise(turn: Turn, replaced: ChatMessage[]): Promise<string | null> {
  const { task, agent } = turn;
  try {
    const startedAt = Date.now();
    const response = await modelClient(
      turn.config,
      requestKeeper(turn, "compaction"),
    ).messages.create(summaryRequest(agent.model, replaced), { signal: turn.signal });
    const spent = callUsage(response);
    const loop = task.loopState.get();
    task.unit.run(() => {
      task.loopState.patch({ usage: addUsage(loop.usage, spent) });
      task.modelCalls.record({
        ...spent,
        kind: "compaction",
        turn: loop.turn,
        attempt: 0,
        model: agent.model,
        startedAt,
        endedAt: Date.now(),
        stopReason: response.stop_reason,
        error: null,
      });
    });
    return response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
  } catch (error) {
    log("warn", "compaction skipped", { task: task.store.record?.id, error: String(error) });
    return null;
  }
}
