/**
 * Request side of the scripted Messages API: Anthropic-style error responses, minimal
 * validation of a `POST /v1/messages` body the way the real API rejects it (including
 * orphaned `tool_use` / `tool_result` pairs), and helpers that read text out of messages.
 */
import { isJsonObject } from "../../protocol/json-shape.ts";

/** How the harness's environment note starts (src/loop/prompt/prompt.ts `ENVIRONMENT_OPEN`). */
const ENVIRONMENT_NOTE_OPEN = "<environment>";

/** A content block of a request message; only `type` is relied on. */
export interface RequestBlock {
  type: string;
  [key: string]: unknown;
}

/** One request message. */
export interface RequestMessage {
  /** `system` messages inside `messages` are accepted (newer API versions allow them). */
  role: "user" | "assistant" | "system";
  content: string | RequestBlock[];
}

/** The fields of a Messages API request the scripted model uses. */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: RequestMessage[];
  system?: unknown;
  stream?: boolean;
}

/** Validation outcome: the typed request, or the `invalid_request_error` message. */
export type ValidationResult =
  | { ok: true; request: MessagesRequest }
  | { ok: false; message: string };

/** Builds an Anthropic error response (`{"type":"error","error":{type,message}}`). */
export function apiError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const requestId = `req_scripted_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  return Response.json(
    { type: "error", error: { type, message }, request_id: requestId },
    { status, headers: { "request-id": requestId, ...headers } },
  );
}

/** HTTP status the real API uses for an error type (for non-streamed mid-stream errors). */
export function statusForErrorType(type: string): number {
  const statuses: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    permission_error: 403,
    not_found_error: 404,
    request_too_large: 413,
    rate_limit_error: 429,
    timeout_error: 504,
    overloaded_error: 529,
  };
  return statuses[type] ?? 500;
}

function blocksOf(message: RequestMessage): RequestBlock[] {
  return typeof message.content === "string" ? [] : message.content;
}

function toolUseIds(message: RequestMessage): string[] {
  return blocksOf(message)
    .filter((b) => b.type === "tool_use")
    .map((b) => String(b.id));
}

function toolResultIds(message: RequestMessage): string[] {
  return blocksOf(message)
    .filter((b) => b.type === "tool_result")
    .map((b) => String(b.tool_use_id));
}

function checkMessageShape(raw: unknown, index: number): string | null {
  if (!isJsonObject(raw)) return `messages.${index}: Input should be an object`;
  if (raw.role !== "user" && raw.role !== "assistant" && raw.role !== "system") {
    return `messages.${index}.role: Input should be 'user', 'assistant' or 'system'`;
  }
  const content = raw.content;
  if (typeof content === "string") return null;
  if (!Array.isArray(content)) return `messages.${index}.content: Field required`;
  for (const [j, block] of content.entries()) {
    if (!isJsonObject(block) || typeof block.type !== "string") {
      return `messages.${index}.content.${j}: Input should be a content block with a type`;
    }
  }
  return null;
}

function checkToolPairing(messages: RequestMessage[]): string | null {
  for (const [i, message] of messages.entries()) {
    if (message.role === "assistant") {
      const uses = toolUseIds(message);
      if (uses.length === 0) continue;
      const next = messages[i + 1];
      const results = new Set(next?.role === "user" ? toolResultIds(next) : []);
      const missing = uses.filter((id) => !results.has(id));
      if (missing.length > 0) {
        return (
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately ` +
          `after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding ` +
          "`tool_result` block in the next message."
        );
      }
    } else if (message.role === "user") {
      const results = toolResultIds(message);
      if (results.length === 0) continue;
      const previous = messages[i - 1];
      const uses = new Set(previous?.role === "assistant" ? toolUseIds(previous) : []);
      const unexpected = results.filter((id) => !uses.has(id));
      if (unexpected.length > 0) {
        return (
          `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
          `${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding ` +
          "`tool_use` block in the previous message."
        );
      }
    }
  }
  return null;
}

/** Validates a parsed request body like the real API does, minimally. */
export function validateRequest(body: unknown): ValidationResult {
  if (!isJsonObject(body)) return { ok: false, message: "request body must be a JSON object" };
  if (typeof body.model !== "string" || body.model === "") {
    return { ok: false, message: "model: Field required" };
  }
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
    return { ok: false, message: "max_tokens: Input should be a positive integer" };
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    return { ok: false, message: "stream: Input should be a valid boolean" };
  }
  const rawMessages = body.messages;
  if (!Array.isArray(rawMessages)) return { ok: false, message: "messages: Field required" };
  if (rawMessages.length === 0) {
    return { ok: false, message: "messages: at least one message is required" };
  }
  for (const [i, raw] of rawMessages.entries()) {
    const problem = checkMessageShape(raw, i);
    if (problem) return { ok: false, message: problem };
  }
  const messages = rawMessages as RequestMessage[];
  if (messages[0]?.role !== "user") {
    return { ok: false, message: 'messages.0.role: first message must use the "user" role' };
  }
  const pairing = checkToolPairing(messages);
  if (pairing) return { ok: false, message: pairing };
  return {
    ok: true,
    request: {
      model: body.model,
      max_tokens: maxTokens,
      messages,
      system: body.system,
      stream: body.stream === true,
    },
  };
}

/** Concatenated text of a message's string content or its `text` blocks. */
export function messageText(message: RequestMessage): string {
  if (typeof message.content === "string") return message.content;
  return (
    message.content
      .filter((b) => b.type === "text" && typeof b.text === "string")
      // A harness's environment note quotes older tasks (their handoff): not this message's words.
      .filter((b) => !String(b.text).startsWith(ENVIRONMENT_NOTE_OPEN))
      .map((b) => String(b.text))
      .join("\n")
  );
}

/** A string as it is, or the text blocks of an array joined by newlines; "" for anything else. */
function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is Record<string, unknown> => isJsonObject(b) && typeof b.text === "string")
    .map((b) => String(b.text))
    .join("\n");
}

/** Text of the `system` field (a string or an array of text blocks). */
export function systemText(system: unknown): string {
  return blocksText(system);
}

/** Text carried by a `tool_result` block (string content or its text blocks). */
export function toolResultText(block: RequestBlock): string {
  return blocksText(block.content);
}

/** The `tool_result` blocks of a message. */
export function toolResults(message: RequestMessage): RequestBlock[] {
  return blocksOf(message).filter((b) => b.type === "tool_result");
}

/** The name of the `tool_use` with `id` in a message, if present. */
export function toolUseName(message: RequestMessage | undefined, id: unknown): string | undefined {
  if (!message) return undefined;
  const block = blocksOf(message).find((b) => b.type === "tool_use" && b.id === id);
  return typeof block?.name === "string" ? block.name : undefined;
}
