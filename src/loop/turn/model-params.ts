/**
 * Builds the Messages API request for one turn from the agent's definition: model, max tokens,
 * thinking budget and effort (stepped down to what the model takes, see agents/models.ts), the cache-ordered system prompt, tools, and a cache breakpoint on
 * the newest message so each turn reads the conversation so far from the prompt cache. Pure.
 */
import type {
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../../agents/identity.ts";
import { effortFor } from "../../agents/models.ts";
import type { ChatMessage } from "../chat-message.ts";

/** The blocks a cache breakpoint may stand on. */
type CacheableBlock =
  | TextBlockParam
  | ImageBlockParam
  | DocumentBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam;

const CACHEABLE: ReadonlySet<string> = new Set([
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
] satisfies CacheableBlock["type"][]);

const isCacheable = (block: ContentBlockParam): block is CacheableBlock =>
  CACHEABLE.has(block.type);

/** The messages with a cache breakpoint on the last block of the last message. */
export function withConversationBreakpoint(messages: ChatMessage[]): ChatMessage[] {
  const last = messages.at(-1);
  if (!last || typeof last.content === "string") return messages;
  const blocks = [...last.content];
  const final = blocks.at(-1);
  if (!final || !isCacheable(final)) return messages;
  blocks[blocks.length - 1] = { ...final, cache_control: { type: "ephemeral" } };
  return [...messages.slice(0, -1), { ...last, content: blocks }];
}

/** Request parameters for one model turn. */
export function modelParams(
  agent: AgentDefinition,
  system: string | TextBlockParam[],
  messages: ChatMessage[],
  tools: Tool[],
): MessageCreateParamsNonStreaming {
  // The file's effort was checked against the model it names; on the deployment's default
  // model, the highest level that model takes.
  const effort = effortFor(agent.effort, agent.model);
  return {
    model: agent.model,
    max_tokens: agent.maxTokens,
    system,
    messages: withConversationBreakpoint(messages),
    ...(tools.length > 0 ? { tools } : {}),
    ...(agent.thinking
      ? { thinking: { type: "enabled", budget_tokens: agent.thinking.budgetTokens } }
      : {}),
    ...(effort ? { output_config: { effort } } : {}),
  };
}
