/**
 * What a new message must pass before it reaches a task object: its parts in media types the agent
 * takes, an `acceptedOutputModes` the agent can answer in, and a valid inline push config. An
 * agent program may answer a new message at once with a Message (no task). Pure: no I/O.
 */
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import type { AgentDefinition } from "../agents/identity.ts";
import { newContextId } from "../auth/anonymous.ts";
import {
  acceptsOurOutput,
  SUPPORTED_INPUT_MODES,
  SUPPORTED_OUTPUT_MODES,
  unsupportedMediaType,
} from "../loop/prompt/user-content.ts";
import { newId } from "../platform/ids.ts";
import { programFor } from "../programs/index.ts";
import type { SendMessageParams } from "../protocol/params.ts";
import type { Message } from "../protocol/wire.ts";
import { checkPushConfig, type NewPushConfig, type PushProtocol } from "../push/push-config.ts";

/** A SendMessageRequest in wire form (validated at the edge by protocol/params.ts). */
export type WireSendRequest = SendMessageParams;

/** The parts of a definition the checks read. */
export type SendDefinition = Pick<
  AgentDefinition,
  "inputModes" | "outputModes" | "dedupeMessages" | "program" | "name"
>;

/** Throws the A2A ContentTypeNotSupportedError when the agent cannot take or answer `request`. */
export function checkMediaTypes(definition: SendDefinition, request: WireSendRequest): void {
  const inputModes = definition.inputModes ?? SUPPORTED_INPUT_MODES;
  const outputModes = definition.outputModes ?? SUPPORTED_OUTPUT_MODES;
  const badType = unsupportedMediaType(request.message.parts, inputModes);
  if (badType)
    throw new ContentTypeNotSupportedError(
      `media type ${badType} is not supported by this agent (it takes ${inputModes.join(", ")})`,
    );
  if (!acceptsOurOutput(request.configuration?.acceptedOutputModes, outputModes))
    throw new ContentTypeNotSupportedError(
      `this agent answers in ${outputModes.join(", ")}, which acceptedOutputModes excludes`,
    );
}

/** The agent program's immediate answer to a new message (no task is made), or null. */
export function programReply(definition: SendDefinition, message: Message): Message | null {
  if (message.taskId) return null;
  const reply = programFor(definition)?.reply(message);
  if (!reply) return null;
  return {
    messageId: newId(),
    role: "ROLE_AGENT",
    parts: reply,
    contextId: message.contextId ?? newContextId(),
  };
}

/** A push config from the client (wire form), checked, or a -32602 saying what is wrong. */
export function checkedPushConfig(
  raw: unknown,
  protocol: PushProtocol,
  allowPrivateUrls: boolean,
): NewPushConfig {
  const checked = checkPushConfig(raw, protocol, allowPrivateUrls);
  if (!checked.ok) throw new RequestMalformedError(checked.reason);
  return checked.config;
}
