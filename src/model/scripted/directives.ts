/**
 * Turn selection inputs of the scripted Messages API: finds the `[[scenario:<id>]]` marker
 * of a request and, when there is none, builds the turn from inline directives in the last
 * user text (`[[reply:]]`, `[[tool:]]`, `[[chunk:]]`, `[[delay:]]`, `[[stall:]]`,
 * `[[error:]]`). Without directives the reply says plainly that this is not Claude.
 */
import {
  type MessagesRequest,
  messageText,
  type RequestMessage,
  systemText,
  toolResults,
  toolResultText,
  toolUseName,
} from "./request.ts";
import type { ErrorSpec, ToolUseSpec, Turn } from "./turn.ts";

const SCENARIO_MARKER = /\[\[scenario:([^\]\s]+)\]\]/;
const TOOL_DIRECTIVE = /\[\[tool:([A-Za-z0-9_-]{1,200})\s*(\{[\s\S]*?\})?\s*\]\]/g;
const REPLY_DIRECTIVE = /\[\[reply:([\s\S]*?)\]\]/;
const ANY_DIRECTIVE = /\[\[(?:scenario|delay|chunk|stall|error|reply):[\s\S]*?\]\]/g;
const ECHO_LIMIT = 200;

/** The turn to play in default mode, plus an error answered on every attempt if asked. */
export interface DirectiveTurn {
  turn: Turn;
  alwaysError?: ErrorSpec;
}

/**
 * The scenario id of a request: the newest user message that names one wins (a conversation can
 * hold earlier tasks' markers). Otherwise, unless the newest user text carries directives of its
 * own, system messages, then the system prompt. (A harness's system prompt may quote an older
 * task's message, marker included, e.g. in a handoff note: directives beside it must win.)
 */
export function findScenarioId(request: MessagesRequest): string | null {
  for (const message of [...request.messages].reverse()) {
    if (message.role !== "user") continue;
    const found = lastMarker(messageText(message));
    if (found) return found;
  }
  if (hasDirectives(directiveSource(request.messages))) return null;
  for (const message of request.messages) {
    if (message.role !== "system") continue;
    const found = SCENARIO_MARKER.exec(messageText(message));
    if (found?.[1]) return found[1];
  }
  const inSystem = SCENARIO_MARKER.exec(systemText(request.system));
  return inSystem?.[1] ?? null;
}

function lastMarker(text: string): string | null {
  const all = [...text.matchAll(new RegExp(SCENARIO_MARKER.source, "g"))];
  return all.at(-1)?.[1] ?? null;
}

/** Number of assistant messages: the index of the turn this request asks for. */
export function turnIndexOf(request: MessagesRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

function numberDirective(text: string, name: string): number | undefined {
  const found = new RegExp(`\\[\\[${name}:\\s*(\\d{1,9})\\s*\\]\\]`).exec(text);
  return found?.[1] === undefined ? undefined : Number(found[1]);
}

function errorTypeFor(status: number): string {
  if (status === 529) return "overloaded_error";
  if (status === 429) return "rate_limit_error";
  return "api_error";
}

function parseToolDirectives(text: string): { tools: ToolUseSpec[]; problems: string[] } {
  const tools: ToolUseSpec[] = [];
  const problems: string[] = [];
  for (const match of text.matchAll(TOOL_DIRECTIVE)) {
    const name = match[1] ?? "";
    const rawInput = match[2];
    if (rawInput === undefined) {
      tools.push({ name, input: {} });
      continue;
    }
    try {
      const input: unknown = JSON.parse(rawInput);
      if (typeof input === "object" && input !== null && !Array.isArray(input)) {
        tools.push({ name, input: input as Record<string, unknown> });
      } else {
        problems.push(`the input of [[tool:${name}]] must be a JSON object`);
      }
    } catch {
      problems.push(`the input of [[tool:${name}]] is not valid JSON`);
    }
  }
  return { tools, problems };
}

function hasDirectives(text: string): boolean {
  return (
    new RegExp(TOOL_DIRECTIVE.source).test(text) || new RegExp(ANY_DIRECTIVE.source).test(text)
  );
}

/** User text with every directive and scenario marker removed, whitespace collapsed. */
export function stripDirectives(text: string): string {
  return text.replace(TOOL_DIRECTIVE, " ").replace(ANY_DIRECTIVE, " ").replace(/\s+/g, " ").trim();
}

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** The text of the last user message that has any (tool_result-only messages are skipped). */
function directiveSource(messages: RequestMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role !== "user") continue;
    const text = messageText(message);
    if (text.trim() !== "") return text;
  }
  return "";
}

/** Reply text for a request whose last user message carries tool results. */
function toolResultReply(messages: RequestMessage[]): string | null {
  const last = messages.at(-1);
  if (last?.role !== "user") return null;
  const results = toolResults(last);
  if (results.length === 0) return null;
  const previous = messages.at(-2);
  return results
    .map((block) => {
      const name = toolUseName(previous, block.tool_use_id) ?? "tool";
      return `Tool ${name} returned: ${clip(toolResultText(block), ECHO_LIMIT)}`;
    })
    .join("\n");
}

function honestReply(userText: string): string {
  const said = clip(stripDirectives(userText), ECHO_LIMIT);
  const echo = said === "" ? "You sent no text." : `You said: “${said}”.`;
  return (
    "This is the scripted local model, not Claude: no ANTHROPIC_API_KEY is configured, " +
    `so every answer is canned text. ${echo} Set ANTHROPIC_API_KEY to talk to Claude.`
  );
}

/** Builds the default-mode turn for a request that names no scenario. */
export function directiveTurn(request: MessagesRequest): DirectiveTurn {
  const source = directiveSource(request.messages);
  const turn: Turn = {};
  const chunk = numberDirective(source, "chunk");
  if (chunk !== undefined && chunk > 0) turn.chunkSize = chunk;
  const delay = numberDirective(source, "delay");
  if (delay !== undefined) turn.delayMs = Math.min(delay, 60_000);
  const stall = numberDirective(source, "stall");
  if (stall !== undefined) {
    turn.stallMs = Math.min(stall, 600_000);
    turn.stallAfterChunks = 1;
  }
  const status = numberDirective(source, "error");
  const alwaysError: ErrorSpec | undefined =
    status !== undefined && status >= 400 && status <= 599
      ? { status, type: errorTypeFor(status), message: `scripted error ${status}` }
      : undefined;

  const afterTools = toolResultReply(request.messages);
  const reply = REPLY_DIRECTIVE.exec(source)?.[1];
  if (afterTools !== null) {
    turn.text = afterTools;
  } else {
    const { tools, problems } = parseToolDirectives(source);
    if (problems.length > 0) {
      turn.text = `Scripted model: ${problems.join("; ")}.`;
    } else if (tools.length > 0) {
      turn.toolUses = tools;
      if (reply !== undefined) turn.text = reply;
    } else {
      turn.text = reply ?? honestReply(source);
    }
  }
  return alwaysError ? { turn, alwaysError } : { turn };
}
