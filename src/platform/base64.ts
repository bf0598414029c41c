/**
 * Bytes as base64 and back (the `raw` of an A2A file part), for any size: the text is built in
 * slices, never spread whole into one call. No I/O.
 */

/** Bytes per slice of {@link base64Of} (well under any engine's argument limit). */
const SLICE = 0x8000;

/** `bytes` as standard base64. */
export function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += SLICE)
    binary += String.fromCharCode(...bytes.subarray(at, at + SLICE));
  return btoa(binary);
}

/** The bytes of standard base64 `text` (already validated: the wire schema checks it). */
export function bytesOfBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
