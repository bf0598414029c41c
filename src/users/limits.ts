/**
 * The limits that apply to a principal: which user object keeps its counters (the user's own, or
 * `ip:<address>` for unauthenticated callers), and its token budgets (the BUDGET_* vars, then the
 * user's overrides in D1, cached per isolate for 10 seconds).
 */

import { isAnonymousOwner } from "../auth/anonymous.ts";
import type { Config } from "../config/config.ts";
import { ipCounters, userCounters } from "../platform/object-names.ts";
import { stubByName } from "../platform/object-stub.ts";
import { storedJson } from "../platform/stored-json.ts";
import type { Principal, UserBudget } from "../protocol/app-types.ts";
import type { UserObject } from "./user-object.ts";

/** The counters' key of a principal (unauthenticated callers are counted per IP). */
export function counterKey(principal: Principal, ip: string | null): string {
  return principal.via === "anonymous" ? ipCounters(ip) : userCounters(principal.id);
}

/** The user object holding `key`'s counters. */
export function userObject(env: Env, key: string): DurableObjectStub<UserObject> {
  return stubByName(env.USERS, key);
}

const BUDGET_TTL_MS = 10_000;
const overrides = new Map<string, { budget: UserBudget | null; at: number }>();

/** Budget overrides a request's credential found for the owner, and when. */
export interface BudgetHint {
  budget: UserBudget | null;
  at: number;
}

/** `{ budget }` of a hint still as fresh as the cache's entries, else nothing (for spreading). */
export function freshBudget(hint: BudgetHint | null): { budget?: UserBudget | null } {
  return hint && Date.now() - hint.at < BUDGET_TTL_MS ? { budget: hint.budget } : {};
}

/**
 * The effective budgets of user `owner` (tokens; 0 = unlimited). A `hint` younger than the
 * cache's TTL (the overrides the task's latest request found with its credential) saves the D1
 * read; an anonymous conversation's owner has no user row, so no overrides; else the user row's
 * overrides, cached.
 */
export async function budgetsFor(
  env: Env,
  config: Config,
  owner: string,
  hint: BudgetHint | null = null,
): Promise<{ taskTokens: number; dayTokens: number; monthTokens: number }> {
  const known = freshBudget(hint);
  const budget =
    "budget" in known
      ? (known.budget ?? null)
      : isAnonymousOwner(owner)
        ? null
        : await storedBudget(env, owner);
  return {
    taskTokens: budget?.taskTokens ?? config.budgets.taskTokens,
    dayTokens: budget?.dayTokens ?? config.budgets.dayTokens,
    monthTokens: budget?.monthTokens ?? config.budgets.monthTokens,
  };
}

/** The overrides in the owner's user row (D1, cached per isolate for {@link BUDGET_TTL_MS}). */
async function storedBudget(env: Env, owner: string): Promise<UserBudget | null> {
  let hit = overrides.get(owner);
  if (!hit || Date.now() - hit.at > BUDGET_TTL_MS) {
    const row = await env.DB.prepare("SELECT budget_json FROM users WHERE id = ?")
      .bind(owner)
      .first<{ budget_json: string | null }>()
      .catch(() => null);
    hit = {
      budget: row?.budget_json ? storedJson<UserBudget>(row.budget_json) : null,
      at: Date.now(),
    };
    overrides.set(owner, hit);
  }
  return hit.budget;
}

/** Drops a cached override (after an admin changes it here). */
export function forgetBudget(owner: string): void {
  overrides.delete(owner);
}
