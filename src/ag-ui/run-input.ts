/**
 * An AG-UI `RunAgentInput` as what it asks of the agent's tasks: a message to send in the thread
 * (threadId = the A2A contextId), the answer to the interrupt a paused task raised (the interrupt's
 * id is that task's id; the answer goes to it as a follow-up message), or the cancellation of that
 * task. Only the newest user message is sent: the thread's earlier turns are the conversation the
 * harness already keeps. An anonymous caller consents to the privacy policy (`REQUIRE_CONSENT`)
 * in `forwardedProps.privacyConsent`, which goes into the message's metadata as an A2A client's
 * does. Validated with AG-UI's own schema; every refusal is a 400 naming why.
 */
import { sha256Hex } from "../platform/hex.ts";
import { HttpError, invalidInput } from "../platform/http-error.ts";
import { CONSENT_METADATA_KEY } from "../privacy/consent.ts";
import { isJsonObject } from "../protocol/json-shape.ts";
import { idSchema, type Message, type Part } from "../protocol/wire.ts";

/** What one run does. */
export type RunAction = { kind: "send"; message: Message } | { kind: "cancel"; taskId: string };

/** A validated run: its ids and what it does. */
export interface RunRequest {
  threadId: string;
  runId: string;
  action: RunAction;
}

/** The text of a user message's content (its text parts; other media are not taken). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part: unknown) =>
      isJsonObject(part) && part.type === "text" && typeof part.text === "string"
        ? [part.text]
        : [],
    )
    .join("\n");
}

/** The parts of an interrupt's answer: text as text, anything else as the form's values. */
function answerParts(payload: unknown): Part[] {
  if (typeof payload === "string" && payload.trim() !== "") return [{ text: payload }];
  if (typeof payload === "object" && payload !== null && !Array.isArray(payload))
    return [{ data: payload, mediaType: "application/json" }];
  if (typeof payload === "boolean" || typeof payload === "number")
    return [{ text: String(payload) }];
  throw new HttpError(400, "resume: the payload of a resolved interrupt is empty", {
    details: true,
  });
}

/** The metadata of the run's message: the consent `forwardedProps` carries, if any. */
function consentMetadata(forwarded: unknown): Pick<Message, "metadata"> {
  if (!isJsonObject(forwarded) || !Object.hasOwn(forwarded, CONSENT_METADATA_KEY)) return {};
  const version = forwarded[CONSENT_METADATA_KEY];
  if (typeof version !== "string" || version.length > 200)
    throw new HttpError(400, `forwardedProps.${CONSENT_METADATA_KEY}: a policy version (text)`, {
      details: true,
    });
  return { metadata: { [CONSENT_METADATA_KEY]: version } };
}

const idOf = (value: string, field: string) => {
  const parsed = idSchema().safeParse(value);
  if (!parsed.success)
    throw new HttpError(400, `${field}: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
      details: true,
    });
  return parsed.data;
};

/** The run `body` asks for (its depth bounded at the edge: edge/face-call.ts); a 400 for anything else. */
export async function runRequest(body: unknown): Promise<RunRequest> {
  if (body === undefined)
    throw new HttpError(400, "the body is not JSON: send a RunAgentInput", { details: true });
  // AG-UI's schemas load with an isolate's first run, not at its start (a task object never needs them).
  const { RunAgentInputSchema } = await import("@ag-ui/core/schemas");
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) throw invalidInput(parsed.error);
  const input = parsed.data;
  const threadId = idOf(input.threadId, "threadId");
  const runId = idOf(input.runId, "runId");
  // The message id derives from the run: a run sent again (a client reconnecting) meets its task.
  const messageId = `ag-ui-${(await sha256Hex(`ag-ui:${threadId}:${runId}`)).slice(0, 32)}`;
  const consent = consentMetadata(input.forwardedProps);
  const resume = input.resume ?? [];
  if (resume.length > 1)
    throw new HttpError(400, "resume: one interrupt is raised at a time; answer it alone", {
      details: true,
    });
  const entry = resume[0];
  if (entry) {
    const taskId = idOf(entry.interruptId, "resume.interruptId");
    if (entry.status === "cancelled")
      return { threadId, runId, action: { kind: "cancel", taskId } };
    return {
      threadId,
      runId,
      action: {
        kind: "send",
        message: {
          messageId,
          role: "ROLE_USER",
          contextId: threadId,
          taskId,
          parts: answerParts(entry.payload),
          ...consent,
        },
      },
    };
  }
  const last = [...input.messages].reverse().find((message) => message.role === "user");
  const text = contentText(last?.content).trim();
  if (!text)
    throw new HttpError(400, "messages: no user message with text to send", { details: true });
  return {
    threadId,
    runId,
    action: {
      kind: "send",
      message: { messageId, role: "ROLE_USER", contextId: threadId, parts: [{ text }], ...consent },
    },
  };
}
