/**
 * The contract of one agent-loop step: what a step needs ({@link StepDeps}: storage, model,
 * tools, hooks, all passed in), the limits it enforces and how it ends ({@link StepOutcome}).
 * Types only.
 */

import type {
  Message,
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../agents/identity.ts";
import type { Part } from "../protocol/wire.ts";
import type { ModelCall } from "../trace/model-calls.ts";
import type { HookRunner } from "./calls/hook-runner.ts";
import type { PendingCall, PendingCalls } from "./calls/suspension.ts";
import type { ToolRegistry } from "./calls/tool-registry.ts";
import type { ChatMessage } from "./chat-message.ts";
import type { HookContext, Suspension, ToolContext } from "./contracts.ts";
import type { LoopState } from "./loop-state.ts";
import type { Refusal } from "./turn/refusal.ts";
import type { TextAction } from "./turn/turn-text.ts";

/** How the step ended and what the task object should do next. */
export type StepOutcome =
  /** Run the next step (after `afterMs`, else at once). */
  | { kind: "continue"; afterMs?: number }
  | { kind: "retry"; delayMs: number; reason: string }
  /** Done: `note` is the final status text, or `message` its parts (kept in the history). */
  | { kind: "completed"; stopReason: string; note?: string; message?: Part[] }
  | { kind: "failed"; message: string }
  | { kind: "suspended"; suspension: Suspension }
  /**
   * The agent asks the person with these parts (input-required), or for their authorization
   * (auth-required, `authorization: true`); their next message resumes it.
   */
  | { kind: "input-required"; message: Part[]; authorization?: boolean }
  /** The agent refuses the task (rejected). */
  | { kind: "rejected"; message: Part[] }
  /** The model declined the request (`stop_reason: "refusal"`): rejected, with its explanation. */
  | { kind: "refused"; refusal: Refusal }
  | { kind: "budget"; message: string }
  | { kind: "aborted" };

/** Limits the step enforces. */
export interface StepLimits {
  maxTurns: number;
  idleTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  /** Tool calls of one model turn that run; the rest are answered "not run". */
  maxToolCallsPerTurn: number;
}

/** What the journal knows of one tool call: it started (`runs` times), and its result if it ended. */
export interface JournalEntry {
  runs: number;
  /** Null: it started and never returned (the task restarted meanwhile). */
  result: ToolResultBlockParam | null;
}

/**
 * The journal of the turn's tool calls, keyed by `tool_use` id (task/store/tool-journal.ts): each
 * call is written as it starts and as it ends, so a restart resumes the turn at its first
 * unfinished call and never runs a finished one again.
 */
export interface ToolJournal {
  /** The call's entry; null when it never started. */
  entry(callId: string): JournalEntry | null;
  started(call: PendingCall, turn: number): void;
  finished(callId: string, result: ToolResultBlockParam): void;
  /** The calls' results reached the conversation: the journal lets their text go. */
  committed(callIds: readonly string[]): void;
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
  /** The tool call journal; absent: calls are not journaled (a restart reruns the turn's). */
  journal?: ToolJournal;
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
  /** Records a model call (called inside the transaction that counts its tokens, if any). */
  recordModelCall?(call: ModelCall): void;
  /** Runs tool call `callId` (its outgoing calls carry the call's span); absent: just runs it. */
  aroundTool?<T>(callId: string, run: () => Promise<T>): Promise<T>;
}
