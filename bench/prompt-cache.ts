/**
 * A model of the Messages API prompt cache, for benchmarks against the scripted model (which
 * does not cache): a request is its blocks in cache order (tools, then system blocks, then each
 * message's content blocks); a `cache_control` breakpoint writes the prefix up to it to the cache,
 * and a later request reads the longest prefix, ending at one of its block boundaries at most 20
 * blocks before one of its breakpoints, that an earlier request wrote. Tokens are estimated at
 * four characters, as the harness estimates them. Entries do not expire (a benchmark's turns are
 * seconds apart, inside the five-minute lifetime).
 */
import { createHash } from "node:crypto";

/** One turn of bench/prompt-growth.ts: the model request's size and what the cache served. */
export interface PromptSample {
  turn: number;
  requestTokens: number;
  systemTokens: number;
  messages: number;
  compactions: number;
  /** Estimated tokens the prompt cache would serve and their share of the request. */
  cacheRead: number;
  cacheShare: number;
}

/** What bench/prompt-growth.ts writes with `--json`. */
export interface PromptGrowth {
  turns: number;
  meanCacheShare: number;
  cacheShareOfTokens: number;
  samples: PromptSample[];
}

/** What one request read from, wrote to and sent past the cache, in estimated tokens. */
export interface CacheUse {
  total: number;
  read: number;
  written: number;
}

interface Block {
  text: string;
  breakpoint: boolean;
}

const LOOKBACK = 20;

function blocksOf(request: {
  tools?: unknown[];
  system?: unknown;
  messages?: Array<{ role: string; content: unknown }>;
}): Block[] {
  const blocks: Block[] = [];
  const push = (value: unknown) => {
    const record = value as { cache_control?: unknown };
    const { cache_control, ...rest } = (
      typeof value === "object" && value !== null ? record : { text: value }
    ) as Record<string, unknown>;
    blocks.push({ text: JSON.stringify(rest), breakpoint: cache_control !== undefined });
  };
  for (const tool of request.tools ?? []) push(tool);
  if (typeof request.system === "string") push(request.system);
  else for (const block of (request.system as unknown[]) ?? []) push(block);
  for (const message of request.messages ?? []) {
    if (typeof message.content === "string") push({ role: message.role, text: message.content });
    else
      for (const block of message.content as unknown[])
        push({ role: message.role, ...(block as object) });
  }
  return blocks;
}

/** A prompt cache shared by the requests given to it in order. */
export class PromptCache {
  readonly #entries = new Set<string>();

  /** Records `request` and answers what it would have read and written. */
  use(request: object): CacheUse {
    const blocks = blocksOf(request as Parameters<typeof blocksOf>[0]);
    const hash = createHash("sha256");
    const prefixes: Array<{ key: string; tokens: number }> = [];
    let chars = 0;
    for (const block of blocks) {
      hash.update(block.text);
      chars += block.text.length;
      prefixes.push({ key: hash.copy().digest("hex"), tokens: Math.ceil(chars / 4) });
    }
    const total = Math.ceil(chars / 4);
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = 0;
    for (const at of breakpoints)
      for (let i = at; i >= Math.max(0, at - LOOKBACK); i--) {
        const prefix = prefixes[i];
        if (prefix && this.#entries.has(prefix.key)) {
          read = Math.max(read, prefix.tokens);
          break;
        }
      }
    let written = 0;
    for (const at of breakpoints) {
      const prefix = prefixes[at];
      if (!prefix) continue;
      this.#entries.add(prefix.key);
      written = Math.max(written, prefix.tokens);
    }
    return { total, read, written: Math.max(0, written - read) };
  }
}
