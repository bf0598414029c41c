/**
 * Who is calling: a user from the D1 users table (by token or by OIDC subject), the deployment's
 * static keys, or anonymous (only where anonymous access is allowed). Everything a task, a
 * workspace or a list belongs to is keyed by a user principal's id; an anonymous caller's data is
 * keyed by its conversation (see anonymous.ts), never by the anonymous principal's id.
 */

import { matchesDelegation } from "../config/delegation-patterns.ts";
import type { Principal } from "../protocol/app-types.ts";
import { ANONYMOUS_CALLER } from "./anonymous.ts";

/**
 * The principal of unauthenticated requests where anonymous access is allowed. Its id is the
 * anonymous claim: it matches anonymous conversations' tasks by id and keys nothing.
 */
export const ANONYMOUS_PRINCIPAL: Principal = {
  id: ANONYMOUS_CALLER,
  role: "user",
  agents: null,
  via: "anonymous",
  budget: null,
};

/**
 * Whether `principal` may call agent `agent` with frontmatter access rules `access`. A delegated
 * caller is matched by `delegated:` patterns in `access.users`.
 */
export function mayUseAgent(
  principal: Principal,
  agent: string,
  access: { roles: string[] | null; users: string[] | null },
): boolean {
  if (principal.role === "admin") return true;
  if (principal.agents !== null && !principal.agents.includes(agent)) return false;
  if (access.roles === null && access.users === null) return true;
  const delegation = principal.delegation;
  return (
    (access.roles?.includes(principal.role) ?? false) ||
    (access.users?.includes(principal.id) ?? false) ||
    (delegation !== undefined &&
      (access.users?.some((u) => matchesDelegation(u, delegation)) ?? false))
  );
}
