/**
 * What the model is told about an MCP server of its agent that could not list its tools: one line
 * per server at the end of the turn's system prompt (which server, why, and that its tools are
 * missing this turn), so that it neither looks for those tools nor pretends it used them. Lists
 * are read every turn (a failed one is not cached), so the line comes and goes with the server.
 * The reason is the harness's words where the error is known (an HTTP status, an answer that is
 * not MCP, an MCP error code), else the error's message in one clipped line: a remote server's
 * error bodies never reach the prompt. No I/O; the reason is read against the MCP SDK's error
 * classes, imported when a list fails (client-sdk.ts: the client that failed loaded them already),
 * so that no isolate evaluates the SDK at startup for this check.
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { clipLine } from "../platform/text.ts";

/** A server whose tools could not be listed, and why (one line). */
export interface McpUnavailable {
  server: string;
  reason: string;
}

const REASON_MAX_CHARS = 160;

const HTTP_REASONS: Readonly<Record<number, string>> = {
  401: "its credentials were refused",
  403: "access was denied",
  404: "no MCP endpoint at its URL",
  429: "too many requests",
};

/** Why listing failed, in one line of at most 160 characters. */
export async function unavailableReason(error: unknown): Promise<string> {
  const { StreamableHTTPError, UnauthorizedError, McpError } = await import("./client-sdk.ts");
  if (error instanceof StreamableHTTPError) {
    const code = error.code ?? 0;
    if (code <= 0) return "its answer was not MCP";
    const known = Object.hasOwn(HTTP_REASONS, code) ? `: ${HTTP_REASONS[code]}` : "";
    return `it answered HTTP ${code}${known}`;
  }
  if (error instanceof UnauthorizedError) return "it asks for an authorization the harness lacks";
  if (error instanceof McpError) return `it answered MCP error ${error.code}`;
  const message = error instanceof Error ? error.message : String(error);
  return clipLine(message, REASON_MAX_CHARS) || "unknown error";
}

/** The line the model reads for one unavailable server. */
export function unavailableLine(entry: McpUnavailable): string {
  return `- MCP server ${entry.server} is unavailable (${entry.reason}): its tools (${entry.server}__*) are missing this turn.`;
}

/**
 * The system prompt's block about unavailable servers (after the cached blocks, without a cache
 * breakpoint of its own), or null when every server listed its tools.
 */
export function unavailableBlock(unavailable: readonly McpUnavailable[]): TextBlockParam | null {
  if (unavailable.length === 0) return null;
  return {
    type: "text",
    text: [
      "## Unavailable tool servers",
      ...unavailable.map(unavailableLine),
      "Work with the tools you have; if the answer needed one of the missing tools, say so.",
    ].join("\n"),
  };
}
