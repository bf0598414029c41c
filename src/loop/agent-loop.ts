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
import { backoffMs, classifyModelError } from "../model/errors.ts";
import type { Part } from "../protocol/wire.ts";
import { AnswerStream } from "./answer-stream.ts";
import type { ChatMessage } from "./chat-message.ts";
import { estimateTokens } from "./compaction.ts";
import type { HookContext, Suspension, ToolContext, ToolResult } from "./contracts.ts";
import type { HookRunner } from "./hook-runner.ts";
import { addUsage, type LoopState, type Usage } from "./loop-state.ts";
import { modelParams } from "./model-params.ts";
import { repairConversation } from "./repair.ts";
import {
  answerContent,
  approvalFrom,
  type ChildOutcome,
  type PendingCall,
  type PendingCalls,
} from "./suspension.ts";
import type { ToolRegistry } from "./tool-registry.ts";
import { type TextAction, TurnText } from "./turn-text.ts";

/** How the step ended and what the task object should do next. */
export type StepOutcome =
  /** Run the next step (after `afterMs`, else at once). */
  | { kind: "continue"; afterMs?: number }
  | { kind: "retry"; delayMs: number; reason: string }
  /** Done: `note` is the final status text, or `message` its parts (kept in the history). */
  | { kind: "completed"; stopReason: string; note?: string; message?: Part[] }
  | { kind: "failed"; message: string }
  | { kind: "suspended"; suspension: Suspension }
  /** The agent asks the person (input-required) with these parts; their next message resumes it. */
  | { kind: "input-required"; message: Part[] }
  /** The agent refuses the task (rejected). */
  | { kind: "rejected"; message: Part[] }
  | { kind: "budget"; message: string }
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
  /** Appends to the model conversation; `contextSeq` marks a turn of another task. */
  appendConversation(message: ChatMessage, contextSeq?: number): void;
  loopState(): LoopState;
  patchLoopState(changes: Partial<LoopState>): void;
  /** The turn's tool calls while one waits for an answer (null when none waits). */
  pendingCalls(): PendingCalls | null;
  setPendingCalls(pending: PendingCalls | null): void;
  /**
   * Token budgets: `reserve` an estimate before each model call (a refusal message ends the
   * step with `budget`), `settle` with what the call really used (0 when it failed).
   */
  budget?: {
    reserve(estimate: number): Promise<string | null>;
    settle(tokens: number): Promise<void>;
  };
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
    const estimate = estimateTokens({ system: params.system, tools: params.tools, messages });
    const refusal = await deps.budget.reserve(estimate + deps.agent.maxTokens);
    if (refusal) return { kind: "budget", message: refusal };
  }
  try {
    response = await deps.callModel(params, onText);
  } catch (error) {
    await deps.budget?.settle(0);
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
  const spent = callUsage(response);
  await deps.budget?.settle(
    spent.inputTokens + spent.outputTokens + spent.cacheReadTokens + spent.cacheWriteTokens,
  );
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

/**
 * Runs `calls` from index `from` in order. When one must wait (a person's answer or approval),
 * the calls and the results so far are saved and the step ends suspended; otherwise the results
 * go into the conversation as one user message (then any turns deferred while waiting).
 */
async function runCalls(
  deps: StepDeps,
  hookContext: HookContext,
  calls: PendingCall[],
  from: number,
  done: ToolResultBlockParam[],
  deferred: PendingCalls["deferred"],
): Promise<StepOutcome> {
  const results = [...done];
  for (let i = from; i < calls.length; i++) {
    const call = calls[i] as PendingCall;
    const decided = await deps.hooks.beforeTool(hookContext, call);
    let raw: ToolResult;
    if (decided && "suspend" in decided) raw = { content: "", suspend: decided.suspend };
    else
      raw =
        decided?.result ??
        (await deps.tools.run(call.name, call.input, { ...deps.toolContext, callId: call.id }));
    if (deps.signal.aborted) return { kind: "aborted" };
    if (raw.suspend) {
      deps.setPendingCalls({
        calls,
        next: i,
        results,
        waiting: raw.suspend,
        resolution: null,
        deferred,
      });
      return { kind: "suspended", suspension: raw.suspend };
    }
    results.push(toResultBlock(call.id, await deps.hooks.afterTool(hookContext, call, raw)));
  }
  deps.transaction(() => {
    deps.appendConversation({ role: "user", content: results });
    for (const turn of deferred) deps.appendConversation(turn.message, turn.seq);
    deps.setPendingCalls(null);
  });
  return { kind: "continue" };
}

/** After the answer arrived: the waiting call's result, then the turn's remaining calls. */
async function finishPendingCalls(
  deps: StepDeps,
  hookContext: HookContext,
  pending: PendingCalls,
): Promise<StepOutcome> {
  const resolution = pending.resolution;
  if (!resolution) return { kind: "suspended", suspension: pending.waiting };
  const call = pending.calls[pending.next] as PendingCall;
  const waiting = pending.waiting;
  let result: ToolResult;
  if (waiting.kind === "child") {
    if (resolution.kind === "reply") {
      // The person answered the sub-agent's question: pass it down and keep waiting.
      await deps.toolContext.subagents.answer(waiting.childTaskId, resolution.parts);
      deps.setPendingCalls({ ...pending, resolution: null });
      return { kind: "suspended", suspension: waiting };
    }
    result = childResult(waiting.agent, resolution);
  } else if (resolution.kind !== "reply") {
    return { kind: "suspended", suspension: waiting };
  } else if (waiting.kind === "question") {
    result = { content: answerContent(resolution) };
  } else {
    const { approved, reason } = approvalFrom(resolution);
    const words = reason.trim() ? ` They said: "${reason.trim().slice(0, 1_000)}"` : "";
    result = approved
      ? await deps.tools.run(call.name, call.input, { ...deps.toolContext, callId: call.id })
      : {
          content: `The user did not approve this call of ${call.name}.${words} Do not repeat it unless they ask; go on without it or ask them how to proceed.`,
          isError: true,
        };
    if (deps.signal.aborted) return { kind: "aborted" };
  }
  const done = [
    ...pending.results,
    toResultBlock(call.id, await deps.hooks.afterTool(hookContext, call, result)),
  ];
  return runCalls(deps, hookContext, pending.calls, pending.next + 1, done, pending.deferred);
}

/** What the model gets back from a sub-agent's task. */
function childResult(agent: string, outcome: ChildOutcome): ToolResult {
  if (outcome.state === "TASK_STATE_COMPLETED")
    return { content: outcome.text || `The ${agent} sub-agent finished without an answer.` };
  const how = outcome.state.replace("TASK_STATE_", "").toLowerCase();
  return {
    content: `The ${agent} sub-agent ${how === "canceled" ? "was canceled" : how}${outcome.text ? `: ${outcome.text}` : "."}`,
    isError: true,
  };
}

function toResultBlock(id: string, result: ToolResult): ToolResultBlockParam {
  return {
    type: "tool_result",
    tool_use_id: id,
    content: result.content,
    ...(result.isError ? { is_error: true } : {}),
  };
}
