/**
 * A request's JSON body as the edge's zod schemas take it: parsed, not yet validated, and never a
 * throw. A body that is not JSON (or cannot be read) is undefined, so the schema's failure gives
 * the 400 that names it (`invalidInput`, http-error.ts) rather than a 5xx; for a route whose
 * fields are all optional, an empty body can read as `{}` (no fields given). Reads the body once.
 */

/** `text` as JSON, or undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as JSON; undefined when it is not JSON (an empty body included). */
export function jsonBody(request: Request): Promise<unknown> {
  return request.text().then(parsed, () => undefined);
}

/** The body as JSON where an empty (or blank) body is `{}`; undefined when it is not JSON. */
export function jsonBodyOrEmpty(request: Request): Promise<unknown> {
  return request.text().then(
    (text) => (text.trim() === "" ? {} : parsed(text)),
    () => undefined,
  );
}
