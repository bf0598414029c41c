/**
 * The user ids the harness gives principals itself, which no admin-made user may take: the
 * anonymous claim and the static keys' ids, and ids beginning `anon-` (anonymous conversations),
 * `dlg-` (delegated principals: a user via an agent from a trusted issuer) or `oidc-` (an OIDC
 * subject's account, made on first sight). A user made under one of them would own that
 * principal's tasks, workspaces and limits. The admin API and the users CLI refuse them. Pure;
 * importable from Node.
 */
import { ANONYMOUS_CALLER, ANONYMOUS_OWNER_PREFIX } from "./anonymous.ts";

/** Owner ids of delegated principals start with this. */
export const DELEGATED_OWNER_PREFIX = "dlg-";
/** Ids of the accounts OIDC subjects get on first sight start with this. */
export const OIDC_USER_PREFIX = "oidc-";
/** The principal of `ADMIN_API_KEY`. */
export const ADMIN_KEY_ID = "admin-key";
/** The principal of `A2A_API_KEY`. */
export const API_KEY_ID = "api-key";

const RESERVED_IDS: ReadonlySet<string> = new Set([ANONYMOUS_CALLER, ADMIN_KEY_ID, API_KEY_ID]);
const RESERVED_PREFIXES = [
  [ANONYMOUS_OWNER_PREFIX, "anonymous conversations"],
  [DELEGATED_OWNER_PREFIX, "delegated callers"],
  [OIDC_USER_PREFIX, "OIDC subjects"],
] as const;

/** Why `id` is not a user id an admin may give, or null when it is free to give. */
export function reservedUserId(id: string): string | null {
  if (RESERVED_IDS.has(id)) return `${id} is reserved (the harness's own principal)`;
  const prefix = RESERVED_PREFIXES.find(([p]) => id.startsWith(p));
  return prefix ? `${id} is reserved (${prefix[0]} names ${prefix[1]})` : null;
}
