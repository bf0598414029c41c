/**
 * One step of the agent loop: one model turn, then the tool calls it asked for. Everything the
 * step touches comes in through {@link StepDeps} (storage, model, tools, hooks), so the step is
 * the same whoever drives it; the task object calls it from its alarm, one step per alarm.
 * A turn is committed atomically (assistant message, counters, answer text) only when the model
 * finished it; a cut-off turn is simply run again. Every failed model call is logged with its
 * cause. A refused turn (`stop_reason: "refusal"`) ends the step `refused`: its text is not
 * kept, neither in the answer nor in the conversation.
 *
 * The step's phases, in order: the turn limit; the calls of a turn that waited for an answer, or
 * that a restart cut off (tool-calls.ts, through its journal); the conversation repaired (turn/repair.ts) and the hooks before the model
 * call; the model call (turn/model-call.ts); the turn committed (or, refused, only its counters);
 * the hooks after the model call; then the turn's tool calls, or the hooks before completion.
 */

import type {
  ContentBlock,
  ContentBlockParam,
  Message,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { addUsage } from "../model/usage.ts";
import { log } from "../platform/logging.ts";
import type { PendingCall } from "./calls/suspension.ts";
import type { ChatMessage } from "./chat-message.ts";
import type { HookContext } from "./contracts.ts";
import type { LoopState } from "./loop-state.ts";
import type { StepDeps, StepOutcome } from "./step-types.ts";
import { finishPendingCalls, runCalls } from "./tool-calls.ts";
import { type Answered, callModel } from "./turn/model-call.ts";
import { type Refusal, refusalOf } from "./turn/refusal.ts";
import { repairConversation } from "./turn/repair.ts";

/** Runs one step; never throws for model or tool failures (they become outcomes). */
export async function runStep(deps: StepDeps): Promise<StepOutcome> {
  const state = deps.loopState();
  if (state.turn >= deps.limits.maxTurns) return turnLimit(state.turn, deps.limits.maxTurns);
  const hookContext: HookContext = { ...deps.hookContext, turn: state.turn };
  const pending = deps.pendingCalls();
  if (pending) return finishPendingCalls(deps, hookContext, pending);
  const conversation = deps.loadConversation();
  // A restart cut the last turn's calls off: the turn resumes at its first unfinished call.
  const cut = deps.journal ? unansweredCalls(conversation) : [];
  if (cut.length > 0) return runCalls(deps, hookContext, cut, 0, [], []);
  const { messages } = repairConversation(conversation);
  await deps.hooks.beforeModelCall(hookContext, messages);
  const answer = await callModel(deps, state, messages);
  if (answer.kind === "ended") return answer.outcome;
  const refusal = refusalOf(answer.response);
  if (refusal) return refused(deps, hookContext, state, answer, refusal);
  const text = commitTurn(deps, state, answer);
  await deps.hooks.afterModelCall(hookContext, { stopReason: answer.response.stop_reason, text });
  return afterTurn(deps, hookContext, answer.response, state.answerText + text);
}

/** The step of a task that reached its turn limit: it completes with a note. */
function turnLimit(turns: number, maxTurns: number): StepOutcome {
  return {
    kind: "completed",
    stopReason: "max_turns",
    note: `Stopped after ${turns} model turns: the turn limit (${maxTurns}) was reached.`,
  };
}

/**
 * Commits a turn the model finished, in one transaction: its message in the conversation, the
 * counters, its text in the answer, its model call. Returns the turn's text.
 */
function commitTurn(deps: StepDeps, state: LoopState, answer: Answered): string {
  const { response, spent, stream } = answer;
  stream.push(answer.text.finish());
  stream.flush();
  const text = answer.text.received;
  deps.transaction(() => {
    deps.appendConversation({
      role: "assistant",
      content: response.content,
    });
    deps.patchLoopState({
      turn: state.turn + 1,
      attempt: 0,
      faults: {},
      answerText: state.answerText + text,
      turnText: "",
      usage: addUsage(state.usage, spent),
    });
    answer.record(spent, response.stop_reason, null);
  });
  return text;
}

/**
 * A turn the model declined: what the classifier stopped is not the agent's answer, nor a turn to
 * build on, so the counters and usage are committed, the turn's text and content are not.
 */
async function refused(
  deps: StepDeps,
  hookContext: HookContext,
  state: LoopState,
  answer: Answered,
  refusal: Refusal,
): Promise<StepOutcome> {
  const { response, spent } = answer;
  answer.stream.discard();
  deps.transaction(() => {
    deps.patchLoopState({
      turn: state.turn + 1,
      attempt: 0,
      faults: {},
      turnText: "",
      usage: addUsage(state.usage, spent),
    });
    answer.record(spent, response.stop_reason, null);
  });
  log("warn", "model refused", {
    task: deps.hookContext.taskId,
    agent: deps.hookContext.agent,
    turn: state.turn,
    category: refusal.category,
  });
  await deps.hooks.afterModelCall(hookContext, { stopReason: response.stop_reason, text: "" });
  return { kind: "refused", refusal };
}

/**
 * What follows a committed turn: its tool calls, another turn (`pause_turn`, or a hook that
 * continues the work), or the task's completion with `answer`.
 */
async function afterTurn(
  deps: StepDeps,
  hookContext: HookContext,
  response: Message,
  answer: string,
): Promise<StepOutcome> {
  if (response.stop_reason === "tool_use")
    return runCalls(deps, hookContext, toolCalls(response.content), 0, [], []);
  if (response.stop_reason === "pause_turn") return { kind: "continue" };
  const decision = await deps.hooks.beforeComplete(hookContext, answer);
  if (decision) {
    deps.appendConversation({
      role: "user",
      content: [{ type: "text", text: decision.continueWith }],
    });
    return { kind: "continue" };
  }
  if (response.stop_reason === "max_tokens") {
    return {
      kind: "completed",
      stopReason: "max_tokens",
      note: `The answer was cut off at the agent's output limit (${deps.agent.maxTokens} tokens).`,
    };
  }
  return { kind: "completed", stopReason: response.stop_reason ?? "end_turn" };
}

/** The tool calls a turn asked for, in order. */
function toolCalls(content: readonly (ContentBlock | ContentBlockParam)[]): PendingCall[] {
  return content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, name: block.name, input: block.input }] : [],
  );
}

/**
 * The tool calls of the conversation's last assistant turn when none of them has a result yet:
 * the turn was committed and its calls were cut off before their results were (a restart).
 */
function unansweredCalls(conversation: readonly ChatMessage[]): PendingCall[] {
  const last = conversation.findLastIndex((m) => m.role === "assistant");
  const turn = conversation[last];
  if (!turn || typeof turn.content === "string") return [];
  const calls = toolCalls(turn.content);
  const answered = conversation
    .slice(last + 1)
    .some(
      (m) =>
        typeof m.content !== "string" &&
        m.content.some(
          (b) => b.type === "tool_result" && calls.some((c) => c.id === b.tool_use_id),
        ),
    );
  return answered ? [] : calls;
}
