/**
 * Outside HTTP under the SSRF policy (ssrf.ts): the URL and every redirect hop (followed by hand,
 * at most `maxRedirects`) are checked before they are fetched; a body is read up to a byte limit
 * and no further; every wait ends when the signal aborts. A redirect to another origin drops the
 * credentials (`Authorization`, `Cookie`), as browsers do; a 303 (or a 301/302 answering a POST)
 * goes on as a GET without a body, a 307/308 sends the same request again. web_fetch and the file
 * parts a message links to (task/message-files.ts) GET through it ({@link guardedGet}); a tool in
 * code is given a whole `fetch` through it ({@link guardedFetch}). No I/O of its own: it sends
 * through the fetch it is given.
 */
import { checkRedirect, checkUrl, type UrlPolicy } from "./ssrf.ts";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIALS = ["authorization", "cookie", "proxy-authorization"];

/** How a guarded request went: the final URL and its response, or why it stopped before one. */
export type GuardedGet =
  | { ok: true; url: URL; response: Response }
  | {
      ok: false;
      /** `refused`: the URL itself; `redirect_refused`: a hop from `url`; `redirects`: too many. */
      failure: "refused" | "redirect_refused" | "redirects";
      url: string;
      reason: string;
    };

/** What a guarded request runs with. */
export interface GuardedGetOptions {
  policy: UrlPolicy;
  signal: AbortSignal;
  /** The fetch to use (tests pass their own); called as a plain function. */
  fetch: typeof fetch;
  headers: HeadersInit;
  maxRedirects: number;
}

/** A request beyond a GET: its method and body, and what a redirect does (default `follow`). */
export interface GuardedRequestInit {
  method?: string;
  body?: ArrayBuffer | string | null;
  /** `manual`: a redirect is the answer. (workerd's Request refuses `error`.) */
  redirect?: "follow" | "manual";
}

/** GETs `requested`, following redirects by hand, each hop checked by the policy. */
export function guardedGet(requested: string, options: GuardedGetOptions): Promise<GuardedGet> {
  return guardedRequest(requested, options);
}

/** Sends a request to `requested` as `init` says, each redirect hop checked by the policy. */
export async function guardedRequest(
  requested: string,
  options: GuardedGetOptions,
  init: GuardedRequestInit = {},
): Promise<GuardedGet> {
  const first = checkUrl(requested, options.policy);
  if (!first.ok) return { ok: false, failure: "refused", url: requested, reason: first.reason };
  const headers = new Headers(options.headers);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body ?? null;
  let url = first.url;
  // Not `options.fetch(...)`: workerd's global fetch throws "Illegal invocation" when called as a
  // method of another object.
  const send = options.fetch;
  for (let hop = 0; ; hop++) {
    const response = await untilAborted(
      send(url.href, {
        method,
        redirect: "manual",
        signal: options.signal,
        headers,
        ...(body === null ? {} : { body }),
      }),
      options.signal,
    );
    if (!REDIRECTS.has(response.status) || init.redirect === "manual")
      return { ok: true, url, response };
    await response.body?.cancel().catch(() => {});
    if (hop >= options.maxRedirects)
      return {
        ok: false,
        failure: "redirects",
        url: url.href,
        reason: `more than ${options.maxRedirects} redirects`,
      };
    const next = checkRedirect(url, response.headers.get("Location"), options.policy);
    if (!next.ok)
      return { ok: false, failure: "redirect_refused", url: url.href, reason: next.reason };
    if (next.url.origin !== url.origin) for (const name of CREDENTIALS) headers.delete(name);
    if (response.status === 303 || (response.status <= 302 && method === "POST")) {
      method = "GET";
      body = null;
      headers.delete("content-type");
      headers.delete("content-length");
    }
    url = next.url;
  }
}

/** A refused request in words, `who` (a tool's name, or `fetch`) saying it. */
export function refusalText(who: string, refused: Extract<GuardedGet, { ok: false }>): string {
  if (refused.failure === "redirects") return `${who} stopped at ${refused.url}: ${refused.reason}`;
  const where =
    refused.failure === "refused" ? refused.url.slice(0, 200) : `a redirect from ${refused.url}`;
  return `${who} refused ${where}: ${refused.reason}`;
}

/** A request the guard refused: nothing was sent to the refused host. */
export class FetchRefused extends Error {
  constructor(refused: Extract<GuardedGet, { ok: false }>) {
    super(refusalText("fetch", refused));
    this.name = "FetchRefused";
  }
}

/**
 * A `fetch` (URL, Request or string; an init) through the guard, at most 5 redirects: what a tool
 * in code gets. `signal` (the task's) aborts every request it sends, beside the request's own; a
 * refusal throws {@link FetchRefused}.
 */
export function guardedFetch(
  send: typeof fetch,
  policy: UrlPolicy,
  signal: AbortSignal,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const own = init?.signal ?? request.signal;
    const method = request.method.toUpperCase();
    const got = await guardedRequest(
      request.url,
      {
        policy,
        signal: own ? AbortSignal.any([signal, own]) : signal,
        fetch: send,
        headers: request.headers,
        maxRedirects: 5,
      },
      {
        method,
        body: method === "GET" || method === "HEAD" ? null : await request.arrayBuffer(),
        redirect: request.redirect === "manual" ? "manual" : "follow",
      },
    );
    if (!got.ok) throw new FetchRefused(got);
    return got.response;
  };
}

/** Reads at most `maxBytes` of the body (`cut`: there was more), then cancels the stream. */
export async function readBody(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    while (size < maxBytes) {
      const { done, value } = await untilAborted(reader.read(), signal);
      if (done) break;
      const room = maxBytes - size;
      if (value.byteLength > room) cut = true;
      chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
      size += Math.min(value.byteLength, room);
    }
    if (size >= maxBytes && !cut) cut = !(await untilAborted(reader.read(), signal)).done;
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, cut };
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (even if the promise never does). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
