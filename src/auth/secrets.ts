/**
 * Constant-time comparisons of secrets (workerd only: `crypto.subtle.timingSafeEqual` is a
 * Workers extension).
 */

const encoder = new TextEncoder();

/** Constant-time equality of two configured secrets, compared as SHA-256 digests. */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(a)),
    crypto.subtle.digest("SHA-256", encoder.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(ha, hb);
}

/** Constant-time equality of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  return x.byteLength === y.byteLength && crypto.subtle.timingSafeEqual(x, y);
}
