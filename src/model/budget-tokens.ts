/**
 * Tokens as budgets count them: each kind weighted by its price relative to an uncached input
 * token (the price table of model/pricing.ts, whose ratios are the same for every Claude model):
 * an input token counts 1, a cache write 1.25, a cache read 0.1 and an output token 5. A budget of
 * N tokens is thus the price of N uncached input tokens on the task's model (on Sonnet, N x $3 per
 * million), so a long task whose prompt the cache serves is not stopped for tokens it barely paid
 * for. Pure.
 */
import { LIST_PRICE } from "./pricing.ts";
import type { Usage } from "./usage.ts";

/** What one token of each kind counts in a budget. */
export const BUDGET_WEIGHTS = {
  input: 1,
  output: LIST_PRICE.output / LIST_PRICE.input,
  cacheRead: LIST_PRICE.cacheRead / LIST_PRICE.input,
  cacheWrite: LIST_PRICE.cacheWrite / LIST_PRICE.input,
} as const;

/** `usage` as budgets count it (rounded up: a budget never counts less than was spent). */
export function budgetTokens(usage: Omit<Usage, "modelCalls">): number {
  return Math.ceil(
    usage.inputTokens * BUDGET_WEIGHTS.input +
      usage.outputTokens * BUDGET_WEIGHTS.output +
      usage.cacheReadTokens * BUDGET_WEIGHTS.cacheRead +
      usage.cacheWriteTokens * BUDGET_WEIGHTS.cacheWrite,
  );
}

/**
 * The most one model call can count, reserved before it: a prompt of `promptTokens` all written
 * to the cache (the dearest way in) and all `maxTokens` of output.
 */
export function callReservation(promptTokens: number, maxTokens: number): number {
  return budgetTokens({
    inputTokens: 0,
    outputTokens: maxTokens,
    cacheReadTokens: 0,
    cacheWriteTokens: promptTokens,
  });
}
