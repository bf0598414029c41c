/**
 * Anonymous callers (where ALLOW_ANONYMOUS allows them): each conversation is its own principal.
 * The server issues a conversation's identity: a message without a contextId gets a new,
 * unguessable one (128 random bits), and the conversation's owner id is `anon-` + 128 bits of
 * SHA-256(contextId), so task records, logs, D1 rows and storage keys hold a hash, never the
 * capability. Whoever names the contextId is in that conversation.
 *
 * An anonymous request's owner is the claim {@link ANONYMOUS_CALLER}: it owns no data itself, and
 * matches any anonymous conversation's task by that task's id alone (a task id derives from its
 * owner, so it is as unguessable as the contextId). It never matches a user's task, and a user
 * never matches an anonymous one. The claim is never a storage key: {@link requireConcreteOwner}
 * guards the places that key data by owner. Pure: no I/O.
 */
import { randomHex, sha256Hex } from "../platform/hex.ts";

/** The owner claim of a request without credentials: "some anonymous conversation". */
export const ANONYMOUS_CALLER = "anonymous";

/** Owner ids of anonymous conversations start with this; user ids never do. */
export const ANONYMOUS_OWNER_PREFIX = "anon-";

/** A new contextId the server issues: 128 random bits, hex. */
export function newContextId(): string {
  return randomHex(16);
}

/** Whether `owner` is an anonymous conversation's owner id. */
export function isAnonymousOwner(owner: string): boolean {
  return owner.startsWith(ANONYMOUS_OWNER_PREFIX);
}

/** The owner id of the anonymous conversation `contextId`. */
export async function anonymousOwner(contextId: string): Promise<string> {
  return `${ANONYMOUS_OWNER_PREFIX}${(await sha256Hex(contextId)).slice(0, 32)}`;
}

/**
 * Whether a task owned by `owner` is visible to a caller claiming `claim`: the same owner, or an
 * anonymous caller and an anonymous conversation's task.
 */
export function ownerMatches(owner: string, claim: string): boolean {
  if (claim === ANONYMOUS_CALLER) return isAnonymousOwner(owner);
  return owner === claim;
}

/** Throws when `owner` is the anonymous claim: data is never keyed by it (a shared key). */
export function requireConcreteOwner(owner: string): string {
  if (owner === ANONYMOUS_CALLER)
    throw new Error("the anonymous claim is not an owner: resolve the conversation first");
  return owner;
}
