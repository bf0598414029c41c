/** Identifier helpers: task and context ids (UUID v4) and W3C trace ids. */

/** A new task or context id. */
export function newId(): string {
  return crypto.randomUUID();
}

/** A new W3C trace id: 32 lowercase hex characters, not all zero. */
export function newTraceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
