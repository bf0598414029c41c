/**
 * API tokens: `a2a_` and 43 characters of base64url (32 random bytes). Only the SHA-256 hash (hex)
 * is stored; a token is shown once, when it is made. Runs in workerd and in Node (the users CLI).
 */
import { sha256Hex } from "../platform/hex.ts";

/** A new token. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
  return `a2a_${b64}`;
}

/** The stored hash of a token (lower-case hex SHA-256). */
export async function tokenHash(token: string): Promise<string> {
  return sha256Hex(token);
}

/** The part of a token shown in listings. */
export const tokenPrefix = (token: string) => token.slice(0, 10);
