/**
 * The privacy policy and consent to it (privacy/policy.ts, privacy/consent.ts):
 *   GET    /api/privacy           the policy in force: version, text, link, whether consent is
 *                                 required, retention and what is stored where (no credentials)
 *   GET    /api/privacy/consent   the caller's consent: the version and time, and whether it is
 *                                 to the policy in force
 *   POST   /api/privacy/consent   { version }: records consent to that version, which must be the
 *                                 one in force (409 otherwise); kept in the caller's users row
 *   DELETE /api/privacy/consent   withdraws it (in force everywhere within 5 s)
 * Consent belongs to an account: anonymous callers give it in their messages' metadata, and the
 * deployment's static keys are not asked (403 here, saying so).
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { authenticate, forgetTokens } from "../auth/middleware.ts";
import { getUser, setConsent, tokenHashes } from "../auth/users-store.ts";
import { loadConfig } from "../config/config.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { HttpError, invalidInput } from "../platform/http-error.ts";
import { jsonBody } from "../platform/json-body.ts";
import { CONSENT_METADATA_KEY, policyLink } from "../privacy/consent.ts";
import { privacyPolicy } from "../privacy/policy.ts";
import type { AppEnv, Principal } from "../protocol/app-types.ts";
import { lazy } from "../utils/lazy.ts";

const consentBody = lazy(() => z.strictObject({ version: z.string().min(1).max(100) }));

/** The caller's account id; a 403 saying why for callers without one. */
function accountOf(principal: Principal): string {
  if (principal.via === "anonymous")
    throw new HttpError(
      403,
      `anonymous callers have no account: a conversation gives consent in its messages (metadata.${CONSENT_METADATA_KEY})`,
    );
  if (principal.via === "key")
    throw new HttpError(403, "the deployment's keys have no account: consent is not asked of them");
  if (principal.via === "delegation")
    throw new HttpError(
      403,
      "a delegated caller has no account here: its own deployment asks for consent",
    );
  return principal.id;
}

async function consentAnswer(c: Context<AppEnv>, id: string) {
  const policy = await privacyPolicy(loadConfig(c.env));
  const consent = (await getUser(c.env.DB, id))?.consent ?? null;
  return {
    user: id,
    version: policy.version,
    consentRequired: policy.consentRequired,
    consent,
    current: consent?.version === policy.version,
  };
}

/** The policy and consent routes. */
export function policyRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/privacy", async (c) => {
    const policy = await privacyPolicy(loadConfig(c.env));
    return c.json({ ...policy, url: policyLink(c) });
  });

  app.use("/api/privacy/consent", authenticate());
  app.get("/api/privacy/consent", async (c) =>
    c.json(await consentAnswer(c, accountOf(c.get("principal")))),
  );
  const sizeLimit = bodyLimit({ maxBytes: 4_096 });
  app.post("/api/privacy/consent", sizeLimit, async (c) => {
    const id = accountOf(c.get("principal"));
    const parsed = consentBody().safeParse(await jsonBody(c.req.raw));
    if (!parsed.success) throw invalidInput(parsed.error);
    const { version } = await privacyPolicy(loadConfig(c.env));
    if (parsed.data.version !== version)
      throw new HttpError(
        409,
        `the privacy policy in force is version ${version}, not ${parsed.data.version}: read it at ${policyLink(c)}`,
      );
    if (!(await setConsent(c.env.DB, id, { version, at: new Date().toISOString() })))
      throw new HttpError(404, "user not found");
    forgetTokens(c.env, await tokenHashes(c.env.DB, id));
    return c.json(await consentAnswer(c, id));
  });
  app.delete("/api/privacy/consent", async (c) => {
    const id = accountOf(c.get("principal"));
    await setConsent(c.env.DB, id, null);
    // Cached principals carry the consent (see auth/middleware.ts): this isolate forgets them now.
    forgetTokens(c.env, await tokenHashes(c.env.DB, id));
    return c.body(null, 204);
  });
  return app;
}
