/**
 * What a scripted turn will answer, decided before any byte is sent: its content blocks (with
 * generated tool-use ids and thinking signatures), stop reason, usage, pacing and the faults to
 * inject on this attempt; and the Message shapes (empty block, whole message) built from it.
 * Pure but for random ids.
 */
import { DEFAULT_CHUNK_SIZE, type StopReason, type Turn } from "./turn.ts";

/** A content block of the answer. */
export type Block =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A turn, planned for one attempt. */
export interface Plan {
  blocks: Block[];
  stopReason: StopReason;
  usage: Usage;
  chunkSize: number;
  delayMs: number;
  stall: { afterChunks: number; ms: number } | null;
  midError: { afterChunks: number; type: string; message: string } | null;
  cut: { afterChunks: number; how: "end" | "drop" } | null;
}

/** `length` random hex digits. */
export function randomHex(length: number): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, length);
}

function signatureFor(thinking: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < thinking.length; i += 1) {
    hash = Math.imul(hash ^ thinking.charCodeAt(i), 0x01000193) >>> 0;
  }
  return btoa(`scripted-thinking-signature:${hash.toString(16)}:${thinking.length}`);
}

/** Plans `turn` for this attempt (`inputTokens`: the request's estimate, unless the turn says). */
export function planTurn(turn: Turn, ctx: { attempt: number; inputTokens: number }): Plan {
  const blocks: Block[] = [];
  if (turn.thinking !== undefined) {
    blocks.push({
      type: "thinking",
      thinking: turn.thinking,
      signature: signatureFor(turn.thinking),
    });
  }
  if (turn.text !== undefined) blocks.push({ type: "text", text: turn.text });
  for (const use of turn.toolUses ?? []) {
    const id = use.id ?? `toolu_scripted_${randomHex(20)}`;
    blocks.push({ type: "tool_use", id, name: use.name, input: use.input });
  }
  const outputChars = blocks.reduce((sum, b) => {
    if (b.type === "text") return sum + b.text.length;
    if (b.type === "thinking") return sum + b.thinking.length;
    return sum + JSON.stringify(b.input).length;
  }, 0);
  const stalls =
    turn.stallMs !== undefined &&
    turn.stallMs > 0 &&
    (turn.stallAttempts === undefined || turn.stallAttempts.includes(ctx.attempt));
  const mid = turn.midStreamError;
  const midApplies = mid !== undefined && (mid.attempts ?? [1]).includes(ctx.attempt);
  const cut = turn.cut;
  const cutApplies = cut !== undefined && (cut.attempts ?? [1]).includes(ctx.attempt);
  return {
    blocks,
    stopReason: turn.stopReason ?? ((turn.toolUses?.length ?? 0) > 0 ? "tool_use" : "end_turn"),
    usage: {
      input_tokens: turn.usage?.input_tokens ?? ctx.inputTokens,
      output_tokens: turn.usage?.output_tokens ?? Math.ceil(outputChars / 4),
      cache_creation_input_tokens: turn.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? 0,
    },
    chunkSize: turn.chunkSize ?? DEFAULT_CHUNK_SIZE,
    delayMs:
      turn.delayAttempts === undefined || turn.delayAttempts.includes(ctx.attempt)
        ? (turn.delayMs ?? 0)
        : 0,
    stall: stalls ? { afterChunks: turn.stallAfterChunks ?? 0, ms: turn.stallMs ?? 0 } : null,
    midError: midApplies
      ? { afterChunks: mid.afterChunks, type: mid.type, message: mid.message ?? mid.type }
      : null,
    cut: cutApplies ? { afterChunks: cut.afterChunks, how: cut.how } : null,
  };
}

/** A block as `content_block_start` announces it: empty, filled by the deltas. */
export function emptyBlock(block: Block): Record<string, unknown> {
  if (block.type === "thinking") return { type: "thinking", thinking: "", signature: "" };
  if (block.type === "text") return { type: "text", text: "", citations: null };
  return {
    type: "tool_use",
    id: block.id,
    name: block.name,
    input: {},
    caller: { type: "direct" },
  };
}

function fullBlock(block: Block): Record<string, unknown> {
  if (block.type === "text") return { ...block, citations: null };
  if (block.type === "tool_use") return { ...block, caller: { type: "direct" } };
  return { ...block };
}

/** The Message: empty (as `message_start` sends it) or `done` with the whole answer. */
export function messageShell(
  plan: Plan,
  ctx: { messageId: string; model: string },
  done: boolean,
): Record<string, unknown> {
  return {
    id: ctx.messageId,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: done ? plan.blocks.map(fullBlock) : [],
    stop_reason: done ? plan.stopReason : null,
    stop_sequence: null,
    usage: done ? plan.usage : { ...plan.usage, output_tokens: 1 },
  };
}
