/**
 * Consent before work (`REQUIRE_CONSENT=true`): a message sent to an agent (SendMessage,
 * SendStreamingMessage, their v0.3 names, REST message:send and message:stream, and a live message:
 * SendLiveMessage, REST live) and a file
 * uploaded to a workspace (the files API's PUT) are refused with 403 until the caller has consented
 * to the privacy policy in force (policy.ts); reading, listing, deleting, canceling, exporting and
 * erasing never are. Who consents how:
 *   - a user: once, `POST /api/privacy/consent` (the D1 users row); a new policy version asks again
 *   - an anonymous caller (no account to record it in): in the message itself, whose metadata
 *     carries `privacyConsent: "<version>"`; the message is kept in its task's history, so the
 *     record lives, is read and is erased with that conversation. An upload, which has no message,
 *     carries it as `?privacyConsent=<version>` (into a conversation whose messages consented)
 *   - the deployment's static keys (ADMIN_API_KEY, A2A_API_KEY): not asked (no person, no account)
 * The refusal names the version and the policy link in its message and in google.rpc ErrorInfo
 * (reason CONSENT_REQUIRED) and Help details: JSON-RPC code -32000 (a server error: A2A defines no
 * code for it) with HTTP 403, or a REST PERMISSION_DENIED.
 */
import type { Context } from "hono";
import { getUser } from "../auth/users-store.ts";
import { loadConfig } from "../config/config.ts";
import { publicBaseUrl } from "../config/public-url.ts";
import { HttpError } from "../platform/http-error.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { privacyPolicy } from "./policy.ts";

/** The message metadata key of an anonymous caller's consent. */
export const CONSENT_METADATA_KEY = "privacyConsent";

/** The policy's link: PRIVACY_POLICY_URL, else this deployment's `GET /api/privacy`. */
export function policyLink(c: Context<AppEnv>): string {
  const config = loadConfig(c.env);
  return config.privacy.policyUrl ?? `${publicBaseUrl(config, c.req.url)}/api/privacy`;
}

const objectAt = (value: unknown, key: string): Record<string, unknown> | null => {
  if (!value || typeof value !== "object" || !Object.hasOwn(value, key)) return null;
  const inner = (value as Record<string, unknown>)[key];
  return inner && typeof inner === "object" ? (inner as Record<string, unknown>) : null;
};

/** The consent version a message's metadata carries, or null. */
function consentIn(message: Record<string, unknown> | null): string | null {
  const metadata = objectAt(message, "metadata");
  const value =
    metadata && Object.hasOwn(metadata, CONSENT_METADATA_KEY)
      ? metadata[CONSENT_METADATA_KEY]
      : null;
  return typeof value === "string" ? value : null;
}

/**
 * Throws the 403 when consent is required and the caller has not given it: `given` is the version
 * an anonymous caller's request carries (null for none), `how` says where it goes.
 */
async function check(
  c: Context<AppEnv>,
  given: string | null,
  how: (version: string) => string,
): Promise<void> {
  const config = loadConfig(c.env);
  if (!config.privacy.requireConsent) return;
  const principal = c.get("principal");
  // The deployment that delegates asked its user (the static keys have no user to ask).
  if (principal.via === "key" || principal.via === "delegation") return;
  const { version } = await privacyPolicy(config);
  const link = policyLink(c);
  if (principal.via === "anonymous") {
    if (given === version) return;
    throw refusal(version, link, how(version));
  }
  if (principal.consent?.version === version) return;
  // The cached principal may predate the consent: ask D1 before refusing.
  if ((await getUser(c.env.DB, principal.id))?.consent?.version === version) return;
  throw refusal(version, link, `then POST /api/privacy/consent with {"version":"${version}"}`);
}

function refusal(version: string, link: string, how: string): HttpError {
  return new HttpError(
    403,
    `Consent required: this service asks for consent to its privacy policy (version ${version}) before it works on your messages. Read it at ${link}; ${how}.`,
    {
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "CONSENT_REQUIRED",
          domain: "a2a-edge-harness",
          metadata: { policyVersion: version, policyUrl: link },
        },
        {
          "@type": "type.googleapis.com/google.rpc.Help",
          links: [{ description: "privacy policy", url: link }],
        },
      ],
    },
  );
}

/**
 * The check for a message being sent (a JSON-RPC send's `params.message`, a REST send body's
 * `message`), as the edge parsed it once; the caller knows the request sends.
 */
export async function checkMessageConsent(c: Context<AppEnv>, message: unknown): Promise<void> {
  if (!loadConfig(c.env).privacy.requireConsent) return;
  await check(
    c,
    consentIn(message && typeof message === "object" ? (message as Record<string, unknown>) : null),
    (version) =>
      `send the message with metadata.${CONSENT_METADATA_KEY} = "${version}" (a conversation without an account gives consent in its messages)`,
  );
}

/** The check for a file uploaded to a workspace: an anonymous caller's `?privacyConsent=`. */
export async function checkUploadConsent(c: Context<AppEnv>): Promise<void> {
  if (!loadConfig(c.env).privacy.requireConsent) return;
  await check(
    c,
    c.req.query(CONSENT_METADATA_KEY) ?? null,
    (version) =>
      `add ?${CONSENT_METADATA_KEY}=${version} to the upload (a conversation without an account gives consent with what it sends)`,
  );
}
