/**
 * The extended Agent Card (spec 1.0.1 §3.1.11, 0.3.0 §7.10): what `GetExtendedAgentCard`,
 * `agent/getAuthenticatedExtendedCard` and `GET [v1/]extendedAgentCard|card` answer. An
 * authenticated caller gets the public card with the frontmatter's `extendedSkills` after its
 * skills (unsigned: a signature covers the public card only). An anonymous caller, where the
 * deployment admits one, gets the public card over v1.0 (the v1.0 kit's reading of "declared")
 * and a 401 over v0.3 (the v0.3 kit's: an unauthenticated call is refused). Pure but for the
 * request it reads.
 */
import type { Context } from "hono";
import type { AgentDefinition } from "../../agents/identity.ts";
import { loadConfig } from "../../config/config.ts";
import { HttpError } from "../../platform/http-error.ts";
import type { AppEnv } from "../../protocol/app-types.ts";
import { cardSkill, declaresExtendedCard } from "./card.ts";

/** The v0.3 code of an extended card the caller cannot have (AuthenticatedExtendedCardNotConfigured). */
const EXTENDED_CARD_V03 = -32007;

/**
 * The card an extended-card request gets from this caller: `card` with the extended skills for
 * an authenticated caller, `card` itself for an anonymous one; null where none is declared.
 */
export function extendedCardFor(
  c: Context<AppEnv>,
  agent: AgentDefinition,
  card: Record<string, unknown>,
): Record<string, unknown> | null {
  if (!declaresExtendedCard(agent, loadConfig(c.env))) return null;
  if (c.get("principal").via === "anonymous" || agent.extendedSkills.length === 0) return card;
  const { signatures: _public, skills, ...rest } = card;
  return {
    ...rest,
    skills: [...(Array.isArray(skills) ? skills : []), ...agent.extendedSkills.map(cardSkill)],
  };
}

/**
 * Throws the 401 an anonymous caller gets for the v0.3 extended card
 * (`agent/getAuthenticatedExtendedCard`, `GET v1/card`), where the agent declares one.
 */
export function refuseAnonymousExtendedCard(c: Context<AppEnv>, agent: AgentDefinition): void {
  if (c.get("principal").via !== "anonymous") return;
  if (!declaresExtendedCard(agent, loadConfig(c.env))) return;
  throw new HttpError(401, "Unauthorized: the extended agent card is for authenticated callers", {
    rpcCode: EXTENDED_CARD_V03,
    headers: { "WWW-Authenticate": 'Bearer realm="a2a"' },
  });
}
