/**
 * Media types at the A2A edge: which request bodies count as JSON, and which JSON media type an
 * HTTP+JSON answer carries. Spec 1.0.1 §11.1 says `application/a2a+json` SHOULD be used, and
 * clients that only know `application/json` are common (the official kit among them), so both
 * are accepted on requests and an answer names `application/a2a+json` only to a client that asked
 * for it (its `Accept`, or a body it sent as `application/a2a+json`). Pure: no I/O.
 */

/** The A2A media type (spec 1.0.1 §14.1). */
export const A2A_JSON = "application/a2a+json";
/** Plain JSON. */
export const JSON_TYPE = "application/json";

/** The `type/subtype` of a media type header value, lower case, without parameters. */
export function baseMediaType(value: string | null | undefined): string {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * True when a request body with this `Content-Type` is read as JSON: `application/json`,
 * `application/a2a+json` or any other `+json` type, and a body sent without a type.
 */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  const type = baseMediaType(contentType);
  return type === "" || type === JSON_TYPE || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** True when an `Accept` header lists `type` with a non-zero quality. */
function accepts(accept: string, type: string): boolean {
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
