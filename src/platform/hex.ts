/**
 * Hex strings of bytes: SHA-256 digests (token hashes, content addresses, ETags, derived ids),
 * HMAC-SHA256 (webhook signatures, keyed stand-ins for ids) and random ids (trace and span ids,
 * nonces). Lowercase, two characters a byte. No I/O.
 */

/** Lowercase hex of `bytes`. */
export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  let hex = "";
  for (const b of bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** Lowercase hex SHA-256 of `data` (text as UTF-8). */
export async function sha256Hex(data: string | BufferSource): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return toHex(await crypto.subtle.digest("SHA-256", bytes));
}

/** `byteCount` random bytes as hex (twice as many characters). */
export function randomHex(byteCount: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(byteCount)));
}

/** HMAC-SHA256 of `data` under `secret`, hex. */
export async function hmacHex(secret: string, data: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(data)));
}
