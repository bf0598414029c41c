/**
 * Builds the Messages API request for one turn from the agent's definition: model, max tokens,
 * thinking budget and effort, system prompt, tools. Pure: no I/O.
 */

import type {
  MessageCreateParamsNonStreaming,
  Tool,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../agents/identity.ts";
import type { ChatMessage } from "./chat-message.ts";

/** Request parameters for one model turn. */
export function modelParams(
  agent: AgentDefinition,
  system: string,
  messages: ChatMessage[],
  tools: Tool[],
): MessageCreateParamsNonStreaming {
  return {
    model: agent.model,
    max_tokens: agent.maxTokens,
    system,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(agent.thinking
      ? { thinking: { type: "enabled", budget_tokens: agent.thinking.budgetTokens } }
      : {}),
    ...(agent.effort ? { output_config: { effort: agent.effort } } : {}),
  };
}
