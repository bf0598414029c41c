/**
 * The model call of one step: the token budget reserved for the call's worst case, the call
 * streamed (its text sent on as answer chunks, batched by answer-stream.ts and never repeated on
 * a retry, turn-text.ts), and the budget settled with what it used. A call that fails becomes the
 * step's outcome, never a throw: a retry with backoff (at least what the server's retry headers
 * ask) while its kind of fault has retries left (a cut stream's and a malformed one's counted
 * apart from the others), else failed with a plain message naming the cause and how often each
 * kind of fault happened; each failed call is logged with its cause chain and recorded
 * (trace/model-calls.ts) without tokens.
 */
import type {
  Message,
  MessageCreateParamsNonStreaming,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { budgetTokens, callReservation } from "../../model/budget-tokens.ts";
import {
  backoffMs,
  classifyModelError,
  FAULT_KINDS,
  FAULT_NAMES,
  type FaultKind,
} from "../../model/errors.ts";
import { callUsage, type Usage } from "../../model/usage.ts";
import { errorFields, log } from "../../platform/logging.ts";
import type { ChatMessage } from "../chat-message.ts";
import type { LoopState } from "../loop-state.ts";
import { estimateRequestTokens } from "../prompt/compaction.ts";
import type { StepDeps, StepOutcome } from "../step-types.ts";
import { AnswerStream } from "./answer-stream.ts";
import { modelParams } from "./model-params.ts";
import { TurnText } from "./turn-text.ts";

/** Put between the text of two turns of one answer. */
const TURN_SEPARATOR = "\n\n";
const NO_TOKENS = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** One call's tokens. */
export type CallUsage = Omit<Usage, "modelCalls">;

/** Records the call (its tokens, why it stopped, or why it failed), timed from its start. */
export type RecordCall = (
  usage: CallUsage | null,
  stopReason: string | null,
  error: string | null,
) => void;

/** What the model answered: its message, its tokens, the turn's text and where it streams. */
export interface Answered {
  kind: "answered";
  response: Message;
  spent: CallUsage;
  /** The turn's text as this attempt received it. */
  text: TurnText;
  /** The answer chunks still to flush (or to discard). */
  stream: AnswerStream;
  record: RecordCall;
}

/** The model's answer, or the outcome that ends the step without one. */
export type ModelAnswer = Answered | { kind: "ended"; outcome: StepOutcome };

/** Calls the model for the turn after `messages` (see the module header). */
export async function callModel(
  deps: StepDeps,
  state: LoopState,
  messages: ChatMessage[],
): Promise<ModelAnswer> {
  const text = new TurnText(state.turnText);
  const stream = new AnswerStream(
    (action, shown) => deps.emitAnswer(action, shown),
    state.turnText,
  );
  if (deps.signal.aborted) return ended({ kind: "aborted" });
  const params = modelParams(deps.agent, deps.system, messages, deps.tools.definitions());
  const refusal = await reserveBudget(deps, params, messages);
  if (refusal) return ended({ kind: "budget", message: refusal });
  const record = callRecorder(deps, state, params.model);
  let response: Message;
  try {
    response = await deps.callModel(params, textSender(deps, state, text, stream));
  } catch (error) {
    await deps.budget?.settle(0);
    stream.discard();
    if (deps.signal.aborted) return ended({ kind: "aborted" });
    return ended(failedCall(deps, state, error, record));
  }
  const spent = callUsage(response);
  await deps.budget?.settle(budgetTokens(spent));
  if (deps.signal.aborted) {
    stream.discard();
    return ended({ kind: "aborted" });
  }
  return { kind: "answered", response, spent, text, stream, record };
}

const ended = (outcome: StepOutcome): ModelAnswer => ({ kind: "ended", outcome });

/**
 * Reserves the call's worst case against the token budgets (the request as estimated from the
 * conversation, plus the agent's output limit); why not, when one refuses.
 */
async function reserveBudget(
  deps: StepDeps,
  params: MessageCreateParamsNonStreaming,
  messages: ChatMessage[],
): Promise<string | null> {
  if (!deps.budget) return null;
  const estimate = estimateRequestTokens({
    system: params.system,
    toolChars: params.tools ? deps.tools.definitionChars() : 0,
    messages,
  });
  return deps.budget.reserve(callReservation(estimate, deps.agent.maxTokens));
}

/** Sends each delta of the call's text on (the answer's next turn after a separator). */
function textSender(
  deps: StepDeps,
  state: LoopState,
  text: TurnText,
  stream: AnswerStream,
): (delta: string) => void {
  let first = true;
  return (delta) => {
    if (deps.signal.aborted) return;
    const sent = first && state.answerText !== "" ? TURN_SEPARATOR + delta : delta;
    first = false;
    stream.push(text.push(sent));
  };
}

/** The recorder of a call of model `model` that starts now. */
function callRecorder(deps: StepDeps, state: LoopState, model: string): RecordCall {
  const startedAt = Date.now();
  return (usage, stopReason, error) =>
    deps.recordModelCall?.({
      kind: "turn",
      turn: state.turn,
      attempt: state.attempt,
      model,
      startedAt,
      endedAt: Date.now(),
      ...(usage ?? NO_TOKENS),
      stopReason,
      error,
    });
}

/**
 * What a failed call ends the step with: a retry while its kind of fault has retries left, else
 * failed, saying which error and how often each kind happened. A cut stream and a malformed one
 * each count only their own kind against their limit; the other faults count together.
 */
function failedCall(
  deps: StepDeps,
  state: LoopState,
  error: unknown,
  record: RecordCall,
): StepOutcome {
  const failure = classifyModelError(error);
  const attempt = state.attempt + 1;
  const faults = { ...state.faults, [failure.kind]: (state.faults[failure.kind] ?? 0) + 1 };
  const counted = countedFaults(faults, failure.kind);
  const retries = Math.min(deps.limits.maxRetries, failure.retryLimit ?? deps.limits.maxRetries);
  const retrying = failure.retryable && counted <= retries;
  record(null, null, failure.message);
  log(retrying ? "warn" : "error", "model call failed", {
    task: deps.hookContext.taskId,
    agent: deps.hookContext.agent,
    turn: state.turn,
    attempt,
    kind: failure.kind,
    retrying,
    reason: failure.message,
    ...errorFields(error),
  });
  if (!retrying) {
    const tries = failure.retryable ? ` after ${attempt} attempts` : "";
    const tally = attempt > 1 ? ` Failed attempts: ${faultTally(faults)}.` : "";
    return {
      kind: "failed",
      message: `The model call failed${tries}: ${failure.message}.${tally}`,
    };
  }
  deps.patchLoopState({ attempt, faults });
  return {
    kind: "retry",
    delayMs: backoffMs(counted, deps.limits.retryBaseMs, failure.retryAfterMs),
    reason: failure.message,
  };
}

/** Kinds of fault whose retries each count apart from the others. */
const OWN_COUNT: ReadonlySet<FaultKind> = new Set(["cut", "malformed"]);

/** How many of the turn's faults count against the retries of a fault of `kind`. */
function countedFaults(faults: LoopState["faults"], kind: FaultKind): number {
  if (OWN_COUNT.has(kind)) return faults[kind] ?? 0;
  return FAULT_KINDS.filter((k) => !OWN_COUNT.has(k)).reduce((sum, k) => sum + (faults[k] ?? 0), 0);
}

/** "2 × overloaded, 1 × cut stream": how often each kind of fault happened. */
function faultTally(faults: LoopState["faults"]): string {
  return FAULT_KINDS.filter((kind) => faults[kind])
    .map((kind) => `${faults[kind]} × ${FAULT_NAMES[kind]}`)
    .join(", ");
}
