/** The conversation messages the loop stores and sends: user and assistant turns only. */
import type {
  AssistantMessageParam,
  UserMessageParam,
} from "@anthropic-ai/sdk/resources/messages/messages";

/** A user or assistant message of the Messages API. */
export type ChatMessage = UserMessageParam | AssistantMessageParam;
