/**
 * Estimated cost of usage, in US dollars per million tokens by model family (list prices at the
 * time of writing; an estimate for budgeting, not an invoice). Unknown models use Sonnet's.
 */

/** Prices per million tokens. */
interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const PRICES: Array<[RegExp, Price]> = [
  [/opus/, { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
  [/haiku/, { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
  [/sonnet/, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
];
const DEFAULT: Price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/**
 * Sonnet's prices, whose ratios (output 5x input, cache writes 1.25x, cache reads 0.1x) every
 * model above shares: the weights token budgets count by (model/budget-tokens.ts).
 */
export const LIST_PRICE: Readonly<Price> = DEFAULT;

/** The estimated cost (USD) of token counts on `model`. */
export function estimateCost(
  model: string,
  tokens: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
  },
): number {
  const price = PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? DEFAULT;
  const usd =
    (tokens.inputTokens * price.input +
      tokens.outputTokens * price.output +
      tokens.cacheReadTokens * price.cacheRead +
      tokens.cacheWriteTokens * price.cacheWrite) /
    1_000_000;
  return Math.round(usd * 1_000_000) / 1_000_000;
}
