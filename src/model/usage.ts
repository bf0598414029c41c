/**
 * Token usage: what model calls cost in tokens, summed per task (the loop counts it, a parent
 * adds its sub-agents', the cost extension prices it). Pure.
 */
import type { Message } from "@anthropic-ai/sdk/resources/messages/messages";

/** Token usage summed over every model call of the task. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  modelCalls: number;
}

/** No model call yet. */
export const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
};

/** Adds one call's usage to a running total. */
export function addUsage(total: Usage, call: Omit<Usage, "modelCalls">): Usage {
  return {
    inputTokens: total.inputTokens + call.inputTokens,
    outputTokens: total.outputTokens + call.outputTokens,
    cacheReadTokens: total.cacheReadTokens + call.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + call.cacheWriteTokens,
    modelCalls: total.modelCalls + 1,
  };
}

/** The field-by-field sum of two usages (a sub-agent's usage counted into its parent's). */
export function sumUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    modelCalls: a.modelCalls + b.modelCalls,
  };
}

/** One model call's usage, as the Messages API reported it. */
export function callUsage(message: Pick<Message, "usage">): Omit<Usage, "modelCalls"> {
  return {
    inputTokens: message.usage.input_tokens,
    outputTokens: message.usage.output_tokens,
    cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
  };
}

/** Every token a call's usage counts, cached ones included (what a token budget spends). */
export function usageTokens(usage: Omit<Usage, "modelCalls">): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
