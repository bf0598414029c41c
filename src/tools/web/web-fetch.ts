/**
 * Tool `web_fetch` (domain `web`): GETs a public http(s) URL and returns it as text:
 * `URL: <final url>\nStatus: <code>\nTitle: <title>\n\n<text>`, HTML converted to readable text,
 * cut to `max_chars` (default 8,000, at most 9,500 so a page fits MAX_TOOL_OUTPUT_CHARS) with a `[truncated: ...]` note.
 * Every URL, and every redirect hop (followed by hand, at most 5), passes the SSRF policy of
 * src/platform/ssrf.ts (WEB_FETCH_ALLOW_PRIVATE lifts the private-address part). Reads text only
 * (text/*, JSON, XML, JavaScript, YAML) and at most 2 MB of body. Refusals, HTTP 4xx/5xx,
 * timeouts (15 s for the whole call) and network failures are tool errors (`isError: true`).
 */

import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../../loop/contracts.ts";
import { guardedGet, readBody, refusalText } from "../../platform/guarded-fetch.ts";
import { currentTraceHeaders } from "../../trace/current-span.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, maxCharsField, requiredText } from "../input.ts";
import { htmlToText } from "./html-text.ts";

/** Default and maximum of `max_chars`. */
export const WEB_FETCH_DEFAULT_CHARS = 8_000;
export const WEB_FETCH_MAX_CHARS = 9_500;

/** Limits of a web_fetch instance (tests shorten them). */
export interface WebFetchOptions {
  /** Whole-call deadline, redirects and body included. Default 15,000. */
  timeoutMs?: number;
  /** Most body bytes read; the rest is not downloaded. Default 2 MB. */
  maxBytes?: number;
  /** Most redirects followed. Default 5. */
  maxRedirects?: number;
}

const USER_AGENT = "a2a-edge-harness/0.1 (web_fetch tool; +https://a2a-protocol.org)";
const TEXT_TYPES =
  /^(text\/[\w.+-]+|application\/([\w.-]+\+)?(json|xml)|application\/(x-)?(javascript|ecmascript|yaml|toml|ndjson|x-ndjson|markdown))$/;

const toolInput = lazy(() =>
  z.strictObject({
    url: requiredText(8192).describe("Absolute http:// or https:// URL."),
    max_chars: maxCharsField(WEB_FETCH_DEFAULT_CHARS, WEB_FETCH_MAX_CHARS),
  }),
);

const fail = (content: string): ToolResult => ({ content, isError: true });

/** Creates a web_fetch tool with the given limits. */
export function createWebFetch(options: WebFetchOptions = {}): Tool {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  return defineTool({
    name: "web_fetch",
    domain: "web",
    readOnly: true,
    description:
      "Fetch a public web page or text resource (http/https) and return its readable text: HTML is " +
      "converted to text with headings, lists and links kept. Only text content types are read. " +
      `Output is cut at max_chars (default ${WEB_FETCH_DEFAULT_CHARS}, at most ${WEB_FETCH_MAX_CHARS}).`,
    input: toolInput,
    async run(input, context) {
      const maxChars = Math.min(input.max_chars ?? WEB_FETCH_DEFAULT_CHARS, WEB_FETCH_MAX_CHARS);
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([context.signal, timeout]);
      try {
        return await fetchText(input.url, maxChars, context, signal, {
          maxBytes,
          maxRedirects,
        });
      } catch (error) {
        if (context.signal.aborted) return fail(`web_fetch of ${input.url} was cancelled.`);
        if (timeout.aborted) {
          return fail(`web_fetch timed out after ${timeoutMs / 1000} s fetching ${input.url}.`);
        }
        const message = error instanceof Error ? error.message : String(error);
        return fail(`web_fetch could not fetch ${input.url}: ${message}`);
      }
    },
  });
}

/** The web_fetch tool with the default limits. */
export const webFetchTool: Tool = createWebFetch();

async function fetchText(
  requested: string,
  maxChars: number,
  context: ToolContext,
  signal: AbortSignal,
  limits: { maxBytes: number; maxRedirects: number },
): Promise<ToolResult> {
  const got = await guardedGet(requested, {
    policy: { allowPrivate: context.config.webFetchAllowPrivate },
    signal,
    fetch: context.fetch,
    headers: {
      "User-Agent": USER_AGENT,
      Accept: "text/html,application/xhtml+xml,text/*;q=0.9,application/json;q=0.8,*/*;q=0.1",
      // Third parties get no trace context unless the operator asks for it.
      ...(context.config.trace.webFetchTraceparent ? currentTraceHeaders() : {}),
    },
    maxRedirects: limits.maxRedirects,
  });
  if (!got.ok) return fail(`${refusalText("web_fetch", got)}.`);
  const { url, response } = got;
  if (response.status >= 400) {
    await response.body?.cancel().catch(() => {});
    const text = response.statusText ? ` ${response.statusText}` : "";
    return fail(`web_fetch got HTTP ${response.status}${text} from ${url.href}.`);
  }
  const contentType = response.headers.get("Content-Type") ?? "";
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (mediaType !== "" && !TEXT_TYPES.test(mediaType)) {
    await response.body?.cancel().catch(() => {});
    return fail(
      `web_fetch reads text only: ${url.href} is ${mediaType} (accepted: text/*, JSON, XML, JavaScript, YAML).`,
    );
  }
  const body = await readBody(response, limits.maxBytes, signal);
  const raw = decode(body.bytes, contentType);
  const isHtml =
    mediaType === "text/html" ||
    mediaType === "application/xhtml+xml" ||
    (mediaType === "" && /^\s*(<!doctype html|<html)/i.test(raw));
  const { title, text } = isHtml ? htmlToText(raw) : { title: null, text: raw.trim() };
  const lines = [`URL: ${url.href}`, `Status: ${response.status}`];
  if (title) lines.push(`Title: ${title}`);
  if (body.cut)
    lines.push(`Note: only the first ${formatBytes(limits.maxBytes)} of the body were read.`);
  return { content: `${lines.join("\n")}\n\n${truncate(text, maxChars)}` };
}

/** The text cut to `maxChars`, with a note saying how much is left and how to get more. */
function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const rest = text.length - maxChars;
  const how =
    maxChars < WEB_FETCH_MAX_CHARS
      ? `call again with max_chars: ${Math.min(text.length, WEB_FETCH_MAX_CHARS)} to read more`
      : `max_chars is at its limit of ${WEB_FETCH_MAX_CHARS}`;
  return `${text.slice(0, maxChars)}\n\n[truncated: ${rest} more characters; ${how}]`;
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
