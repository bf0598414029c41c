/**
 * What the CLI says when something fails: one line that names what failed and what to do
 * (start the server, fix the URL, pass a token, list the tasks...). Network failures, HTTP
 * statuses the last response carried, and the A2A errors the @a2a-js/sdk client throws are
 * translated; anything else keeps its own message.
 */

import {
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { stateWord } from "../src/protocol/task-states.ts";

/** A failure already worded for the user. */
export class CliError extends Error {
  override readonly name: string = "CliError";
}

/** A wrong command line: printed with the usage, exit 2. */
export class UsageError extends CliError {
  override readonly name = "UsageError";
}

/** Longest server message the CLI prints. */
const MESSAGE_MAX = 300;

/** A server's message on one line, at most {@link MESSAGE_MAX} characters. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MESSAGE_MAX ? `${flat.slice(0, MESSAGE_MAX - 1)}…` : flat;
}

/**
 * What an error response says, on one line: a REST `{error: {message}}`, a JSON-RPC
 * `{error: {message}}`, or a short plain-text body; null when it says nothing readable.
 */
export async function serverMessage(response: Response): Promise<string | null> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    return typeof message === "string" && message.trim() ? oneLine(message) : null;
  } catch {
    return text.trim() && !/^\s*</.test(text) ? oneLine(text) : null;
  }
}

/** Where the CLI was talking to, for the wording. */
export interface ErrorContext {
  /** The agent's base URL. */
  url: string;
  /** How the user named the agent (a name of this harness, or the URL). */
  agent: string;
  /** Whether `agent` is a name at the harness of --url (not a URL of its own). */
  harness: boolean;
  /** The task the command was about, if any. */
  taskId?: string;
  /** The HTTP status of the last response, if one came. */
  lastStatus?: number;
  /** Whether a bearer token was sent. */
  tokenSent?: boolean;
  /** The origin the last request went to without the token (it is for `url`'s origin only). */
  tokenWithheldFrom?: string;
}

const isLoopback = (url: URL) => ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);

/** The message for a fetch that never got an answer (refused, unknown host, timeout...). */
function network(error: Error, context: ErrorContext): string | null {
  const code = (error.cause as { code?: string } | undefined)?.code ?? "";
  if (!(error instanceof TypeError) && !code) return null;
  const url = new URL(context.url);
  const where = url.origin;
  if (code === "ECONNREFUSED")
    return isLoopback(url)
      ? `cannot reach ${where}: is \`npm run dev\` running?${url.port === "8787" ? "" : ` (npm run dev -- --port ${url.port})`}`
      : `cannot reach ${where}: connection refused; check the URL (--url for this harness)`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `cannot resolve ${url.hostname}: check the URL${context.harness ? " (--url or A2A_URL)" : ""}`;
  if (code.includes("TIMEOUT") || error.name === "TimeoutError")
    return `no answer from ${where} in time: check the URL and your network`;
  if (code.startsWith("ERR_TLS") || code.includes("CERT"))
    return `TLS failed for ${where} (${code}): check the URL`;
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || error.message === "terminated")
    return `the connection to ${where} was cut: try again`;
  return error.message === "fetch failed"
    ? `cannot reach ${where} (${code || "fetch failed"})`
    : null;
}

/** The status and message of the SDK's "HTTP error ... Response: <body>" errors, if it is one. */
function sdkHttpError(message: string): { status: string; said: string | null } | null {
  const match = /^HTTP error[^\d]*?(\d{3})[^\n]*?Response: ([\s\S]*)$/.exec(message);
  if (!match) return null;
  const body = match[2] ?? "";
  let said: string | null = null;
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof json.error?.message === "string") said = oneLine(json.error.message);
  } catch {
    said = body.trim() && !body.startsWith("(") && !/^\s*</.test(body) ? oneLine(body) : null;
  }
  return { status: match[1] ?? "", said };
}

/** One line for `error`. */
export function explain(error: unknown, context: ErrorContext): string {
  if (error instanceof CliError) return error.message;
  if (!(error instanceof Error)) return String(error);
  const net = network(error, context);
  if (net) return net;
  const task = context.taskId ?? "the task";
  if (error instanceof TaskNotFoundError)
    return `no task ${task} at ${context.agent}: it does not exist or is not yours (npm run a2a -- tasks ${context.agent} lists yours)`;
  if (error instanceof TaskNotCancelableError)
    return `task ${task} can no longer be canceled: it has ended (npm run a2a -- get ${context.agent} ${task})`;
  const sdk = sdkHttpError(error.message);
  const said = oneLine(sdk ? (sdk.said ?? `HTTP ${sdk.status}`) : error.message);
  const ended = /has ended \(((?:TASK_STATE_)?[A-Za-z_-]+)\)/.exec(error.message);
  if (error instanceof UnsupportedOperationError && ended)
    return `task ${task} has ended (${stateWord(ended[1])}): it takes no more messages; see it with npm run a2a -- get ${context.agent} ${task}, or send without --task to start a new one`;
  if (error instanceof UnsupportedOperationError)
    return `${context.agent} does not support this: ${error.message}`;
  if (context.lastStatus === 401 && context.tokenWithheldFrom)
    return `${context.tokenWithheldFrom} (named by the card of ${context.agent}) asks for a token; yours is for ${new URL(context.url).origin} only and was not sent there`;
  if (context.lastStatus === 401)
    return context.tokenSent
      ? `${context.agent} refused the token (mistyped, revoked or expired?): ${said}`
      : `${context.agent} needs a token: pass --token <token> or set A2A_TOKEN${context.harness ? " (npm run users -- add <id> makes one)" : ""}`;
  if (context.lastStatus === 403) return `${context.agent} refused this caller: ${said}`;
  if (context.lastStatus === 429) return `too many requests: ${said}; wait and try again`;
  return sdk ? `${context.agent} answered HTTP ${sdk.status}: ${said}` : said;
}
