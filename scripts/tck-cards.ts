/**
 * The card signature part of `npm run tck`: a fresh ES256 signing key for the run's servers
 * (AGENT_CARD_SIGNING_KEY), and the CARD-SIGN-001..003 checks (card-sign-check.ts) on an agent's
 * served card in both generations (v1.0: `A2A-Version: 1.0`; v0.3: no header), one line each.
 * Node only.
 */
import { exportJWK, generateKeyPair } from "jose";
import { checkCardSignature, type SignCheck } from "./card-sign-check.ts";

/** `AGENT_CARD_SIGNING_KEY:<a private ES256 JWK>`, made for this run only. */
export async function signingKeyVar(): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: `tck-${Date.now()}`, alg: "ES256" };
  return `AGENT_CARD_SIGNING_KEY:${JSON.stringify(jwk)}`;
}

/** The checks of the card at `cardUrl`, per generation. */
export async function cardSignChecks(
  cardUrl: string,
): Promise<Array<{ generation: "1.0" | "0.3" } & SignCheck>> {
  const out: Array<{ generation: "1.0" | "0.3" } & SignCheck> = [];
  for (const generation of ["1.0", "0.3"] as const) {
    const response = await fetch(cardUrl, {
      headers: generation === "1.0" ? { "A2A-Version": "1.0" } : {},
    });
    const card = (await response.json()) as Record<string, unknown>;
    for (const check of await checkCardSignature(card)) out.push({ generation, ...check });
  }
  return out;
}

/** One line per check: `CARD-SIGN-001 v1.0 pass: ...`. */
export const signCheckLines = (checks: Array<{ generation: string } & SignCheck>) =>
  checks.map((c) => `${c.id} v${c.generation} ${c.passed ? "pass" : "FAIL"}: ${c.detail}`);
