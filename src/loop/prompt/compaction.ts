/**
 * Context compaction: when a conversation passes the token budget (`CONTEXT_TOKEN_BUDGET`), its
 * older part is summarised by the model into one note that replaces it. The kept part is the
 * newest messages worth about half the budget, cut only where the API accepts a new start: at an
 * assistant message (its tool results follow it) or at a user message without tool results, so
 * every tool call in flight stays whole. Token counts are estimated at four characters a token.
 * Pure: no I/O.
 */
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChatMessage } from "../chat-message.ts";

/** Estimated tokens of any JSON-able value (four characters a token). */
export function estimateTokens(value: unknown): number {
  return Math.ceil((typeof value === "string" ? value.length : JSON.stringify(value).length) / 4);
}

/**
 * Estimated tokens of a model request: `estimateTokens({ system, tools, messages })`, with the
 * tools' definitions given by their length as JSON (`toolChars`, 0 for none: the request has no
 * `tools` then), measured once per tool rather than written out (ToolRegistry.definitionChars).
 */
export function estimateRequestTokens(request: {
  system: unknown;
  toolChars: number;
  messages: unknown;
}): number {
  const chars =
    '{"system":,"messages":}'.length +
    JSON.stringify(request.system).length +
    (request.toolChars > 0 ? ',"tools":'.length + request.toolChars : 0) +
    JSON.stringify(request.messages).length;
  return Math.ceil(chars / 4);
}

const hasToolResult = (m: ChatMessage) =>
  typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result");

/**
 * Where to cut `messages` (keep `messages[cut..]`), or null when they fit in `budget` tokens
 * (`fixed`: the tokens of the system prompt and tools, sent with every call).
 */
export function compactionCut(
  messages: readonly ChatMessage[],
  budget: number,
  fixed: number,
): number | null {
  const sizes = messages.map(estimateTokens);
  const total = sizes.reduce((a, b) => a + b, fixed);
  if (total <= budget) return null;
  // Keep about half of what the budget leaves after the system prompt and tools.
  const keep = Math.max(0, (budget - fixed) / 2);
  let kept = 0;
  let target = messages.length;
  while (target > 0 && kept + (sizes[target - 1] ?? 0) <= keep) {
    kept += sizes[target - 1] ?? 0;
    target -= 1;
  }
  // Summarising fewer than two messages saves nothing.
  const from = Math.max(target, 2);
  for (const [offset, m] of messages.slice(from).entries())
    if (m.role === "assistant" || !hasToolResult(m)) return from + offset;
  return null;
}

function render(message: ChatMessage): string {
  const who = message.role === "user" ? "User" : "Assistant";
  if (typeof message.content === "string") return `${who}: ${message.content}`;
  const parts = message.content.map((b) => {
    switch (b.type) {
      case "text":
        return b.text;
      case "tool_use":
        return `[called ${b.name} ${JSON.stringify(b.input).slice(0, 300)}]`;
      case "tool_result": {
        const text = typeof b.content === "string" ? b.content : JSON.stringify(b.content ?? "");
        return `[${b.is_error ? "tool error" : "tool result"}: ${text.slice(0, 500)}]`;
      }
      default:
        return `[${b.type}]`;
    }
  });
  return `${who}: ${parts.join("\n")}`;
}

const MAX_TRANSCRIPT = 200_000;

/** The request that summarises `messages` (the part being replaced). */
export function summaryRequest(
  model: string,
  messages: readonly ChatMessage[],
): MessageCreateParamsNonStreaming {
  let transcript = messages.map(render).join("\n\n");
  if (transcript.length > MAX_TRANSCRIPT) {
    const half = MAX_TRANSCRIPT / 2;
    transcript = `${transcript.slice(0, half)}\n\n[... middle omitted ...]\n\n${transcript.slice(-half)}`;
  }
  return {
    model,
    max_tokens: 2048,
    system:
      "You compress a conversation between a user and an AI agent so the agent can continue without it. Write a concise note in the agent's voice: the user's goals and requests, decisions taken and why, facts learned (with file paths and URLs), files created or changed, what was answered, and what is still open. No preamble.",
    messages: [
      {
        role: "user",
        content: `Conversation to summarise:\n\n${transcript}\n\nWrite the note now.`,
      },
    ],
  };
}

/** The user message that replaces the summarised part. */
export function summaryMessage(note: string, replaced: number): ChatMessage {
  return {
    role: "user",
    content: [
      {
        type: "text",
        text: `[Summary of the ${replaced} earlier messages of this conversation, written by the harness to save space]\n${note.trim()}`,
      },
    ],
  };
}
