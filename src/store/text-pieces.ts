/**
 * Cutting a text into pieces of at most a given length that join back to it exactly: a cut never
 * falls inside a surrogate pair, so each piece is well-formed text that SQLite (UTF-8) stores
 * as is (a lone surrogate would come back as U+FFFD). Pure: no I/O.
 */

/** `text` in pieces of at most `size` UTF-16 code units (one piece for a short text, none for ""). */
export function textPieces(text: string, size: number): string[] {
  if (text.length <= size) return text === "" ? [] : [text];
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + size, text.length);
    // A high surrogate ending the piece goes with its low one, into the next piece.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
