/**
 * Request body limits that hold before a body is kept. A `Content-Length` over the limit is
 * refused at once, without reading a byte (the runtime drops the unread body). A body without one
 * (chunked) is kept up to the limit and no further; the rest is drained (read and dropped, no
 * memory) before the 413 goes out, so the request ends cleanly. Measured under `wrangler dev`: a
 * chunked body left locked after a 413 (hono's bodyLimit), canceled, or released half-read ended
 * the whole dev server now and then (its proxy takes the broken upstream request for a fatal
 * error); drained, 2.2 MB and 20 MB chunked bodies get 413 and it keeps serving, every time. On
 * Cloudflare the edge caps request bodies (100 MB or more, by plan), so a drain is bounded.
 * {@link bodyLimit} is every route's body limit: MAX_BODY_BYTES unless the route names its own,
 * refused with a 413 {@link HttpError} that names the limit.
 */
import type { MiddlewareHandler } from "hono";
import { loadConfig } from "../config/config.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { HttpError, type HttpErrorOptions } from "./http-error.ts";

/** The body's bytes, or `null` when it is larger than `max` bytes (read no further than needed). */
export async function readLimited(request: Request, max: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !request.headers.has("transfer-encoding")) {
    const length = Number(declared);
    if (!Number.isSafeInteger(length) || length > max) return null;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await drain(reader);
        return null;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads the rest of a body and drops it. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    for (;;) if ((await reader.read()).done) return;
  } catch {
    // The client went away: nothing left to drain.
  }
}

/** A route's body limit. */
export interface BodyLimitOptions {
  /** The most bytes a body may have; by default the deployment's MAX_BODY_BYTES. */
  maxBytes?: number;
  /** Words before the 413's message (the A2A endpoints: "Request payload validation error: "). */
  lead?: string;
  /** How the 413 is answered beyond its status and message (the A2A endpoints' code, details). */
  answer?: HttpErrorOptions;
}

/** The 413 of a body over `max` bytes. */
function tooLarge(max: number, options: BodyLimitOptions): HttpError {
  const which = options.maxBytes === undefined ? " (MAX_BODY_BYTES)" : "";
  const message = `${options.lead ?? ""}the body exceeds the size limit of ${max} bytes${which}`;
  return new HttpError(413, message, options.answer);
}

/**
 * Middleware: refuses a body over the limit with a 413 (see {@link BodyLimitOptions}), else hands
 * the next handler a request whose body is the bytes read.
 */
export function bodyLimit(options: BodyLimitOptions = {}): MiddlewareHandler<AppEnv> {
  return async function limitBody(c, next) {
    if (!c.req.raw.body) return next();
    const max = options.maxBytes ?? loadConfig(c.env).maxBodyBytes;
    const bytes = await readLimited(c.req.raw, max);
    if (bytes === null) throw tooLarge(max, options);
    c.req.raw = new Request(c.req.raw, { body: bytes });
    await next();
  };
}
