/**
 * How hooks plug into the agent loop: one interface with optional phases (before/after each model
 * call, before/after each tool, before the task completes). The loop knows hooks only through
 * this file; hook state lives in the task object's SQLite via {@link HookState}.
 */
import type { Config } from "../config.ts";
import type { ChatMessage } from "../loop/chat-message.ts";
import type { HarnessEvent } from "../loop/harness-events.ts";
import type { Suspension } from "../loop/suspension.ts";
import type { ToolResult } from "../tools/types.ts";

/** Durable per-task key/value state for hooks (counters, flags); survives restarts. */
export interface HookState {
  get<T>(hook: string, key: string): T | undefined;
  set(hook: string, key: string, value: unknown): void;
}

/** Facts every phase receives. */
export interface HookContext {
  taskId: string;
  agent: string;
  turn: number;
  state: HookState;
  config: Config;
  /** Tools that need a person's approval before each call (frontmatter `tools.requireApproval`). */
  requireApproval: readonly string[];
  /** Publishes a harness event on the task's stream (a hook intervention). */
  emit(event: HarnessEvent): void;
}

/** A tool call as hooks see it. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * What `beforeTool` may decide: run the call (undefined), answer it without running, or make it
 * wait for a person (the call runs, or is refused, once they answer).
 */
export type BeforeToolDecision = { result: ToolResult } | { suspend: Suspension } | undefined;

/** What `beforeComplete` may decide: let the task finish (undefined) or add a user turn and continue. */
export type BeforeCompleteDecision = { continueWith: string } | undefined;

/** A hook. Every phase is optional; phases run in registry order. */
export interface Hook {
  readonly name: string;
  beforeModelCall?(ctx: HookContext, messages: readonly ChatMessage[]): Promise<void> | void;
  afterModelCall?(
    ctx: HookContext,
    response: { stopReason: string | null; text: string },
  ): Promise<void> | void;
  beforeTool?(ctx: HookContext, call: ToolCall): Promise<BeforeToolDecision> | BeforeToolDecision;
  afterTool?(
    ctx: HookContext,
    call: ToolCall,
    result: ToolResult,
  ): Promise<ToolResult> | ToolResult;
  beforeComplete?(
    ctx: HookContext,
    answer: string,
  ): Promise<BeforeCompleteDecision> | BeforeCompleteDecision;
}
