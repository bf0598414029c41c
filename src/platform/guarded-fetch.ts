/**
 * A GET of an outside URL under the SSRF policy (ssrf.ts): the URL and every redirect hop
 * (followed by hand, at most `maxRedirects`) are checked before they are fetched; a body is read
 * up to a byte limit and no further; every wait ends when the signal aborts. web_fetch and the
 * file parts a message links to (task/message-files.ts) fetch through it.
 */
import { checkRedirect, checkUrl, type UrlPolicy } from "./ssrf.ts";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** How a guarded GET went: the final URL and its response, or why it stopped before one. */
export type GuardedGet =
  | { ok: true; url: URL; response: Response }
  | {
      ok: false;
      /** `refused`: the URL itself; `redirect_refused`: a hop from `url`; `redirects`: too many. */
      failure: "refused" | "redirect_refused" | "redirects";
      url: string;
      reason: string;
    };

/** What a guarded GET runs with. */
export interface GuardedGetOptions {
  policy: UrlPolicy;
  signal: AbortSignal;
  /** The fetch to use (tests pass their own); called as a plain function. */
  fetch: typeof fetch;
  headers: Record<string, string>;
  maxRedirects: number;
}

/** GETs `requested`, following redirects by hand, each hop checked by the policy. */
export async function guardedGet(
  requested: string,
  options: GuardedGetOptions,
): Promise<GuardedGet> {
  const first = checkUrl(requested, options.policy);
  if (!first.ok) return { ok: false, failure: "refused", url: requested, reason: first.reason };
  let url = first.url;
  // Not `options.fetch(...)`: workerd's global fetch throws "Illegal invocation" when called as a
  // method of another object.
  const send = options.fetch;
  for (let hop = 0; ; hop++) {
    const response = await untilAborted(
      send(url.href, {
        method: "GET",
        redirect: "manual",
        signal: options.signal,
        headers: options.headers,
      }),
      options.signal,
    );
    if (!REDIRECTS.has(response.status)) return { ok: true, url, response };
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
    url = next.url;
  }
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
