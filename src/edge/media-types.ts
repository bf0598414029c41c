/**
 * Media types of answers at the edge: which JSON media type an HTTP+JSON answer carries, and
 * whether an `Accept` header asks for a type by name. Spec 1.0.1 §11.1 says
 * `application/a2a+json` SHOULD be used, and clients that only know `application/json` are common
 * (the official kit among them), so both are accepted on requests (platform/content-type.ts) and an
 * answer names `application/a2a+json` only to a client that asked for it (its `Accept`, or a body
 * it sent as `application/a2a+json`). Pure: no I/O.
 */
import { baseMediaType } from "../platform/content-type.ts";

/** The A2A media type (spec 1.0.1 §14.1). */
export const A2A_JSON = "application/a2a+json";
/** Plain JSON. */
export const JSON_TYPE = "application/json";

/** True when an `Accept` header lists `type` itself (no wildcard) with a non-zero quality. */
export function accepts(accept: string, type: string): boolean {
  return accept.split(",").some((entry) => {
    const [name, ...params] = entry.split(";");
    if (baseMediaType(name) !== type) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The media type of an HTTP+JSON (v1.0) answer to a request with these headers. */
export function answerMediaType(headers: Headers): string {
  const accept = headers.get("Accept") ?? "";
  const sentA2a = baseMediaType(headers.get("Content-Type")) === A2A_JSON;
  return accepts(accept, A2A_JSON) || sentA2a ? A2A_JSON : JSON_TYPE;
}
