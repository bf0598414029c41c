/**
 * Text bounded for a reader with a budget (the model's prompt, a tool's answer): cut to a number of
 * characters with an ellipsis, and the same on one line with its whitespace runs collapsed. The
 * result is never longer than asked (the ellipsis counts). Pure: no I/O.
 */

/** `text` cut to `max` characters, with an ellipsis (counted) when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/** `text` on one line (whitespace runs as one space, trimmed), cut to `max` characters. */
export function clipLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}
