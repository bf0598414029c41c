/**
 * The limits that apply to a principal: which user object keeps its counters (the user's own, or
 * `ip:<address>` for unauthenticated callers), and its token budgets (the BUDGET_* vars, then the
 * user's overrides in D1, cached per isolate for 10 seconds).
 */
import type { UserBudget } from "../auth/users-store.ts";
import type { Config } from "../config/config.ts";
import { stubByName } from "../platform/object-stub.ts";
import type { Principal } from "../protocol/app-types.ts";
import type { UserObject } from "./user-object.ts";

/** The counters' key of a principal (unauthenticated callers are counted per IP). */
export function counterKey(principal: Principal, ip: string | null): string {
  return principal.via === "anonymous" ? `ip:${ip ?? "unknown"}` : `user:${principal.id}`;
}

/** The user object holding `key`'s counters. */
export function userObject(env: Env, key: string): DurableObjectStub<UserObject> {
  return stubByName(env.USERS, key);
}

const BUDGET_TTL_MS = 10_000;
const overrides = new Map<string, { budget: UserBudget | null; at: number }>();

/** The effective budgets of user `owner` (tokens; 0 = unlimited). */
export async function budgetsFor(
  env: Env,
  config: Config,
  owner: string,
): Promise<{ taskTokens: number; dayTokens: number; monthTokens: number }> {
  let hit = overrides.get(owner);
  if (!hit || Date.now() - hit.at > BUDGET_TTL_MS) {
    const row = await env.DB.prepare("SELECT budget_json FROM users WHERE id = ?")
      .bind(owner)
      .first<{ budget_json: string | null }>()
      .catch(() => null);
    hit = {
      budget: row?.budget_json ? (JSON.parse(row.budget_json) as UserBudget) : null,
      at: Date.now(),
    };
    overrides.set(owner, hit);
  }
  return {
    taskTokens: hit.budget?.taskTokens ?? config.budgets.taskTokens,
    dayTokens: hit.budget?.dayTokens ?? config.budgets.dayTokens,
    monthTokens: hit.budget?.monthTokens ?? config.budgets.monthTokens,
  };
}

/** Drops a cached override (after an admin changes it here). */
export function forgetBudget(owner: string): void {
  overrides.delete(owner);
}
