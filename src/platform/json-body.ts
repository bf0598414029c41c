/**
 * A request's JSON body as the edge's zod schemas take it: parsed, not yet validated, and never a
 * throw. A body that is not JSON (or cannot be read) is undefined, so the schema's failure gives
 * the 400 that names it (`invalidInput`, http-error.ts) rather than a 5xx; for a route whose
 * fields are all optional, an empty body can read as `{}` (no fields given). Reads the body once,
 * as bytes decoded as UTF-8: workerd warns when `.text()` reads a body whose Content-Type is not
 * textual, and a client's wrong media type is the caller's error to name, not a log line.
 */

/** Whatever can hand over a body's bytes: a Request, or Hono's request (which caches them). */
interface BodySource {
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The body as text (UTF-8, invalid sequences replaced), whatever its Content-Type says. */
export async function bodyText(source: BodySource): Promise<string> {
  return new TextDecoder().decode(await source.arrayBuffer());
}

/** `text` as JSON, or undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as JSON; undefined when it is not JSON (an empty body included). */
export function jsonBody(source: BodySource): Promise<unknown> {
  return bodyText(source).then(parsed, () => undefined);
}

/** The body as JSON where an empty (or blank) body is `{}`; undefined when it is not JSON. */
export function jsonBodyOrEmpty(request: Request): Promise<unknown> {
  return bodyText(request).then(
    (text) => (text.trim() === "" ? {} : parsed(text)),
    () => undefined,
  );
}
