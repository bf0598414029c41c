/**
 * The usage a long task of the default size reports, turn by turn, for the scripted model to
 * report: the prompt growth `npm run bench:prompt` measured under `CONTEXT_TOKEN_BUDGET` 60,000
 * (7.7k tokens at turn 1, near 55k by turn 20, then 35-57k as the conversation is compacted every
 * 12 turns), served by the API's prompt cache as that bench models it: each turn reads all but
 * the newest 3,000 tokens from the cache, writes 2,000 and sends 1,000 uncached; a compaction's
 * turn (and the first) writes the whole prompt but the cached system prompt again. Each turn
 * answers 750 tokens (3,000 characters). No bindings: workerd and Node alike.
 */
import type { UsageSpec } from "../../src/model/scripted/turn.ts";

/** The prompt's size at turn `i` (0-based) and whether the cache was just invalidated. */
function prompt(i: number): { tokens: number; rewritten: boolean } {
  if (i < 20) return { tokens: 7_700 + i * 2_400, rewritten: i === 0 };
  return { tokens: 35_000 + ((i - 20) % 12) * 2_000, rewritten: (i - 20) % 12 === 0 };
}

/** What turn `i` (0-based) of a long task reports. */
export function longTaskUsage(i: number): Required<UsageSpec> {
  const { tokens, rewritten } = prompt(i);
  const read = rewritten ? 3_000 : tokens - 3_000;
  return {
    input_tokens: 1_000,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: tokens - read - 1_000,
    output_tokens: 750,
  };
}
