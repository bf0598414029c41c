/**
 * Whether bytes are UTF-8 text, and the text: a workspace file is text when its bytes are (an
 * upload's may not be), and a file sent with a message is shown to the model as text only then.
 * Pure: no I/O.
 */

/**
 * `bytes` as text when they are UTF-8, else null (a binary file). A byte order mark is kept as a
 * character, so encoding the text again gives the same bytes.
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
