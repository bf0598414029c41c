/**
 * One step of the agent loop: one model turn, then the tool calls it asked for. Everything the
 * step touches comes in through {@link StepDeps} (storage, model, tools, hooks), so the step is
 * the same whoever drives it; the task object calls it from its alarm, one step per alarm.
 * A turn is committed atomically (assistant message, counters, answer text) only when the model
 * finished it; a cut-off turn is simply run again. Every failed model call is logged with its
 * cause. A refused turn (`stop_reason: "refusal"`) ends the step `refused`: its text is not
 * kept, neither in the answer nor in the conversation.
 */

import type { ContentBlockParam, Message } from "@anthropic-ai/sdk/resources/messages/messages";
import { budgetTokens, callReservation } from "../model/budget-tokens.ts";
import { backoffMs, classifyModelError } from "../model/errors.ts";
import { addUsage, type Usage } from "../model/usage.ts";
import { errorFields, log } from "../platform/logging.ts";
import type { PendingCall } from "./calls/suspension.ts";
import type { HookContext } from "./contracts.ts";
import { estimateRequestTokens } from "./prompt/compaction.ts";
import type { StepDeps, StepOutcome } from "./step-types.ts";
import { finishPendingCalls, runCalls } from "./tool-calls.ts";
import { AnswerStream } from "./turn/answer-stream.ts";
import { modelParams } from "./turn/model-params.ts";
import { refusalOf } from "./turn/refusal.ts";
import { repairConversation } from "./turn/repair.ts";
import { TurnText } from "./turn/turn-text.ts";

const TURN_SEPARATOR = "\n\n";
const NO_TOKENS = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function callUsage(message: Message): Omit<Usage, "modelCalls"> {
  return {
    inputTokens: message.usage.input_tokens,
    outputTokens: message.usage.output_tokens,
    cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
  };
}

/** Runs one step; never throws for model or tool failures (they become outcomes). */
export async function runStep(deps: StepDeps): Promise<StepOutcome> {
  const state = deps.loopState();
  if (state.turn >= deps.limits.maxTurns) {
    return {
      kind: "completed",
      stopReason: "max_turns",
      note: `Stopped after ${state.turn} model turns: the turn limit (${deps.limits.maxTurns}) was reached.`,
    };
  }
  const hookContext: HookContext = { ...deps.hookContext, turn: state.turn };
  const pending = deps.pendingCalls();
  if (pending) return finishPendingCalls(deps, hookContext, pending);
  const { messages } = repairConversation(deps.loadConversation());
  await deps.hooks.beforeModelCall(hookContext, messages);

  const tracker = new TurnText(state.turnText);
  const stream = new AnswerStream(
    (action, shown) => deps.emitAnswer(action, shown),
    state.turnText,
  );
  let first = true;
  const onText = (delta: string) => {
    if (deps.signal.aborted) return;
    const text = first && state.answerText !== "" ? TURN_SEPARATOR + delta : delta;
    first = false;
    stream.push(tracker.push(text));
  };

  let response: Message;
  if (deps.signal.aborted) return { kind: "aborted" };
  const params = modelParams(deps.agent, deps.system, messages, deps.tools.definitions());
  if (deps.budget) {
    const estimate = estimateRequestTokens({
      system: params.system,
      toolChars: params.tools ? deps.tools.definitionChars() : 0,
      messages,
    });
    const refusal = await deps.budget.reserve(callReservation(estimate, deps.agent.maxTokens));
    if (refusal) return { kind: "budget", message: refusal };
  }
  const startedAt = Date.now();
  const modelCall = (
    usage: Omit<Usage, "modelCalls"> | null,
    stopReason: string | null,
    error: string | null,
  ) =>
    deps.recordModelCall?.({
      kind: "turn",
      turn: state.turn,
      attempt: state.attempt,
      model: params.model,
      startedAt,
      endedAt: Date.now(),
      ...(usage ?? NO_TOKENS),
      stopReason,
      error,
    });
  try {
    response = await deps.callModel(params, onText);
  } catch (error) {
    await deps.budget?.settle(0);
    stream.discard();
    if (deps.signal.aborted) return { kind: "aborted" };
    const failure = classifyModelError(error);
    const attempt = state.attempt + 1;
    const retries = Math.min(deps.limits.maxRetries, failure.retryLimit ?? deps.limits.maxRetries);
    const retrying = failure.retryable && attempt <= retries;
    modelCall(null, null, failure.message);
    log(retrying ? "warn" : "error", "model call failed", {
      task: deps.hookContext.taskId,
      agent: deps.hookContext.agent,
      turn: state.turn,
      attempt,
      retrying,
      reason: failure.message,
      ...errorFields(error),
    });
    if (retrying) {
      deps.patchLoopState({ attempt });
      return {
        kind: "retry",
        delayMs: backoffMs(attempt, deps.limits.retryBaseMs, failure.retryAfterMs),
        reason: failure.message,
      };
    }
    const tries = failure.retryable ? ` after ${attempt} attempts` : "";
    return { kind: "failed", message: `The model call failed${tries}: ${failure.message}.` };
  }
  const spent = callUsage(response);
  await deps.budget?.settle(budgetTokens(spent));
  if (deps.signal.aborted) {
    stream.discard();
    return { kind: "aborted" };
  }
  const refusal = refusalOf(response);
  if (refusal) {
    // What the classifier stopped is not the agent's answer, nor a turn to build on: the
    // counters and usage are committed, the turn's text and content are not.
    stream.discard();
    deps.transaction(() => {
      deps.patchLoopState({
        turn: state.turn + 1,
        attempt: 0,
        turnText: "",
        usage: addUsage(state.usage, spent),
      });
      modelCall(spent, response.stop_reason, null);
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
  stream.push(tracker.finish());
  stream.flush();

  const turnText = tracker.received;
  deps.transaction(() => {
    deps.appendConversation({
      role: "assistant",
      content: response.content as ContentBlockParam[],
    });
    deps.patchLoopState({
      turn: state.turn + 1,
      attempt: 0,
      answerText: state.answerText + turnText,
      turnText: "",
      usage: addUsage(state.usage, spent),
    });
    modelCall(spent, response.stop_reason, null);
  });
  await deps.hooks.afterModelCall(hookContext, {
    stopReason: response.stop_reason,
    text: turnText,
  });

  if (response.stop_reason === "tool_use") {
    const calls: PendingCall[] = [];
    for (const block of response.content)
      if (block.type === "tool_use")
        calls.push({ id: block.id, name: block.name, input: block.input });
    return runCalls(deps, hookContext, calls, 0, [], []);
  }
  if (response.stop_reason === "pause_turn") return { kind: "continue" };
  const decision = await deps.hooks.beforeComplete(hookContext, state.answerText + turnText);
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
