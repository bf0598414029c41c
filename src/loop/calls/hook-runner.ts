/**
 * The ordered list of hooks for a task and the one place that runs them. The first hook that
 * decides (answers a tool call, continues a completion) wins; `afterTool` results chain through
 * every hook in order.
 */
import type { ChatMessage } from "../chat-message.ts";
import type {
  BeforeCompleteDecision,
  BeforeToolDecision,
  Hook,
  HookContext,
  ToolCall,
  ToolResult,
} from "../contracts.ts";

/** Runs hooks in order for each loop phase. */
export class HookRunner {
  readonly #hooks: readonly Hook[];

  constructor(hooks: readonly Hook[] = []) {
    this.#hooks = hooks;
  }

  /** Hook names in order. */
  names(): string[] {
    return this.#hooks.map((h) => h.name);
  }

  async beforeModelCall(ctx: HookContext, messages: readonly ChatMessage[]): Promise<void> {
    for (const hook of this.#hooks) await hook.beforeModelCall?.(ctx, messages);
  }

  async afterModelCall(
    ctx: HookContext,
    response: { stopReason: string | null; text: string },
  ): Promise<void> {
    for (const hook of this.#hooks) await hook.afterModelCall?.(ctx, response);
  }

  async beforeTool(ctx: HookContext, call: ToolCall): Promise<BeforeToolDecision> {
    for (const hook of this.#hooks) {
      const decision = await hook.beforeTool?.(ctx, call);
      if (decision) return decision;
    }
    return undefined;
  }

  async afterTool(ctx: HookContext, call: ToolCall, result: ToolResult): Promise<ToolResult> {
    let current = result;
    for (const hook of this.#hooks) {
      if (hook.afterTool) current = await hook.afterTool(ctx, call, current);
    }
    return current;
  }

  async beforeComplete(ctx: HookContext, answer: string): Promise<BeforeCompleteDecision> {
    for (const hook of this.#hooks) {
      const decision = await hook.beforeComplete?.(ctx, answer);
      if (decision) return decision;
    }
    return undefined;
  }
}
