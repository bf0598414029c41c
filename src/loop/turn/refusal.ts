/**
 * A model turn that ended with `stop_reason: "refusal"` (the API's streaming classifiers declined
 * the request): what the task tells the person, from the turn's `stop_details` (its explanation,
 * else a default that says what happened and what to do), and the policy category when the API
 * named one. `stop_details` is read as untrusted input: only strings of sane length pass.
 * Pure: no I/O.
 */
import type { Message } from "@anthropic-ai/sdk/resources/messages/messages";

/** The stop reason of a refused turn, as the API and the task's `metadata.stopReason` say it. */
export const REFUSAL_STOP_REASON = "refusal";

/** What the task says when the refusal came without an explanation. */
export const DEFAULT_REFUSAL_TEXT =
  "The model declined this request and gave no explanation. Rephrase it or ask for something else; the declined request is left out of the conversation.";

/** Most characters of an explanation kept. */
const EXPLANATION_CHARS = 2_000;

/** A refused turn as the task reports it. */
export interface Refusal {
  /** The explanation for the person (the API's, or {@link DEFAULT_REFUSAL_TEXT}). */
  explanation: string;
  /** The policy category the API named (`cyber`, `bio`...), or null. */
  category: string | null;
}

/** The refusal of `message`, or null when its turn was not refused. */
export function refusalOf(
  message: Pick<Message, "stop_reason"> & { stop_details?: unknown },
): Refusal | null {
  if (message.stop_reason !== REFUSAL_STOP_REASON) return null;
  const details = message.stop_details;
  const fields = details !== null && typeof details === "object" ? details : {};
  const raw =
    "explanation" in fields && Object.hasOwn(fields, "explanation")
      ? fields.explanation
      : undefined;
  const text = typeof raw === "string" ? raw.trim() : "";
  const category =
    "category" in fields && Object.hasOwn(fields, "category") ? fields.category : undefined;
  return {
    explanation:
      text === ""
        ? DEFAULT_REFUSAL_TEXT
        : text.length > EXPLANATION_CHARS
          ? `${text.slice(0, EXPLANATION_CHARS)}…`
          : text,
    category: typeof category === "string" && /^[a-z_]{1,50}$/.test(category) ? category : null,
  };
}
