/**
 * JWTs from an OIDC issuer or Cloudflare Access, verified with `jose`: signature against the
 * issuer's JWKS (`OIDC_JWKS_URL`, fetched and cached by jose, or inline `OIDC_JWKS`), issuer,
 * audience and expiry. A verified token's subject maps to a user (see users-store.ts).
 */
import { createLocalJWKSet, createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from "jose";
import type { Config } from "../config/config.ts";

const remoteSets = new Map<string, JWTVerifyGetKey>();

function keySet(oidc: NonNullable<Config["oidc"]>): JWTVerifyGetKey {
  if (oidc.jwks) return createLocalJWKSet(oidc.jwks as Parameters<typeof createLocalJWKSet>[0]);
  const url = oidc.jwksUrl as string;
  let set = remoteSets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    remoteSets.set(url, set);
  }
  return set;
}

/** Whether a bearer value looks like a JWT (three base64url parts). */
export const looksLikeJwt = (value: string) =>
  /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);

/** The verified subject and display name, or null for any failure (never says why). */
export async function verifyJwt(
  config: Config,
  token: string,
): Promise<{ subject: string; name: string } | null> {
  const oidc = config.oidc;
  if (!oidc) return null;
  try {
    const { payload } = await jwtVerify(token, keySet(oidc), {
      issuer: oidc.issuer,
      audience: oidc.audience,
    });
    if (typeof payload.sub !== "string" || payload.sub === "") return null;
    const name =
      (typeof payload.email === "string" && payload.email) ||
      (typeof payload.name === "string" && payload.name) ||
      payload.sub;
    return { subject: `${oidc.issuer}#${payload.sub}`, name };
  } catch {
    return null;
  }
}
