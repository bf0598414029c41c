/**
 * One step of the agent loop: one model turn, then the tool calls it asked for. Everything the
 * step touches comes in through {@link StepDeps} (storage, model, tools, hooks), so the step is
 * the same whoever drives it; the task object calls it from its alarm, one step per alarm.
 * A turn is committed atomically (assistant message, counters, answer text) only when the model
 * finished it; a cut-off turn is simply run again.
 */

import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../agents/identity.ts";
import type { HookRunner } from "../hooks/registry.ts";
import type { HookContext } from "../hooks/types.ts";
import { backoffMs, classifyModelError } from "../model/errors.ts";
import type { LoopState, Usage } from "../task/loop-state.ts";
import { addUsage } from "../task/loop-state.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ToolContext } from "../tools/types.ts";
import { AnswerStream } from "./answer-stream.ts";
import type { ChatMessage } from "./chat-message.ts";
import { modelParams } from "./model-params.ts";
import { repairConversation } from "./repair.ts";
import { type TextAction, TurnText } from "./turn-text.ts";

/** How the step ended and what the task object should do next. */
export type StepOutcome =
  | { kind: "continue" }
  | { kind: "retry"; delayMs: number; reason: string }
  | { kind: "completed"; stopReason: string; note?: string }
  | { kind: "failed"; message: string }
  | { kind: "aborted" };

/** Limits the step enforces. */
export interface StepLimits {
  maxTurns: number;
  idleTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
}

/** Everything a step needs. */
export interface StepDeps {
  agent: AgentDefinition;
  system: string | TextBlockParam[];
  limits: StepLimits;
  signal: AbortSignal;
  tools: ToolRegistry;
  toolContext: ToolContext;
  hooks: HookRunner;
  hookContext: Omit<HookContext, "turn">;
  callModel(
    params: MessageCreateParamsNonStreaming,
    onText: (delta: string) => void,
  ): Promise<Message>;
  loadConversation(): ChatMessage[];
  appendConversation(message: ChatMessage): void;
  loopState(): LoopState;
  patchLoopState(changes: Partial<LoopState>): void;
  /** Sends a chunk of the answer; `turnShown` is the turn's text clients have now seen. */
  emitAnswer(action: TextAction, turnShown: string): void;
  transaction<T>(fn: () => T): T;
}

const TURN_SEPARATOR = "\n\n";

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
  try {
    response = await deps.callModel(
      modelParams(deps.agent, deps.system, messages, deps.tools.definitions()),
      onText,
    );
  } catch (error) {
    stream.discard();
    if (deps.signal.aborted) return { kind: "aborted" };
    const failure = classifyModelError(error);
    const attempt = state.attempt + 1;
    if (failure.retryable && attempt <= deps.limits.maxRetries) {
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
  if (deps.signal.aborted) {
    stream.discard();
    return { kind: "aborted" };
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
      usage: addUsage(state.usage, callUsage(response)),
    });
  });
  await deps.hooks.afterModelCall(hookContext, {
    stopReason: response.stop_reason,
    text: turnText,
  });

  if (response.stop_reason === "tool_use") {
    const results = await runToolCalls(deps, hookContext, response);
    if (deps.signal.aborted) return { kind: "aborted" };
    deps.appendConversation({ role: "user", content: results });
    return { kind: "continue" };
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

async function runToolCalls(
  deps: StepDeps,
  hookContext: HookContext,
  response: Message,
): Promise<ToolResultBlockParam[]> {
  const results: ToolResultBlockParam[] = [];
  for (const block of response.content) {
    if (block.type !== "tool_use") continue;
    const call = { id: block.id, name: block.name, input: block.input };
    const decided = await deps.hooks.beforeTool(hookContext, call);
    const raw =
      decided?.result ?? (await deps.tools.run(block.name, block.input, deps.toolContext));
    const result = await deps.hooks.afterTool(hookContext, call, raw);
    results.push({
      type: "tool_result",
      tool_use_id: block.id,
      content: result.content,
      ...(result.isError ? { is_error: true } : {}),
    });
  }
  return results;
}
