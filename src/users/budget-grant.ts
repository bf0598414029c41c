/**
 * The admission's budget grant: the edge's one call to the caller's user object (rate-limit.ts)
 * also reserves, under the call's key, what a task's first model call would reserve, so that call
 * need not ask the user object again before it starts (one object call and one round trip fewer
 * before the first model byte). The edge does not know the prompt (the workspace is read by the
 * task), so it asks for the agent's output limit plus {@link GRANT_PROMPT_TOKENS} and the body's
 * size, weighted as any reservation is (model/budget-tokens.ts). A grant never refuses a request:
 * when the day or month budget cannot hold it the request is admitted without one, and the first
 * model call reserves its exact estimate as before.
 *
 * The grant travels with the caller ({@link GrantHandoff}) to the task the request reaches, which
 * takes it as its next model call's reservation (task/turn/budget-gate.ts: when the call's
 * estimate fits, no call; else the same key is reserved again at the estimate), or releases it
 * (settled at 0) when that message runs no model call. A grant no task took (a refused send, a
 * reply without a task) is released by the edge when the response ends. One the task held when
 * its object was reset stops counting with the reservation's expiry (user-object.ts): it only
 * ever over-counts, never lets a budget be overspent.
 */
import type { AgentDefinition } from "../agents/identity.ts";
import type { Config } from "../config/config.ts";
import { callReservation } from "../model/budget-tokens.ts";
import type { BudgetGrant, GrantSource, Principal } from "../protocol/app-types.ts";
import { userObject } from "./limits.ts";
import type { GrantAsk } from "./user-object.ts";

/**
 * The prompt tokens a grant allows besides the body's: a first call's system prompt, tools and
 * environment note (a bundled agent's first call estimates about 7-8k: docs/benchmarks.md).
 */
export const GRANT_PROMPT_TOKENS = 12_288;

/**
 * The day and month budgets of `principal` as the request already knows them (the BUDGET_*
 * vars, under the overrides its credential found), or null when only the user row in D1 would
 * say (a static key's caller): then no grant, rather than a D1 read on the request's path.
 */
function knownBudgets(
  config: Config,
  principal: Principal,
): { dayTokens: number; monthTokens: number } | null {
  if (principal.via !== "anonymous" && principal.budget === undefined) return null;
  const { dayTokens, monthTokens } = config.budgets;
  return {
    dayTokens: principal.budget?.dayTokens ?? dayTokens,
    monthTokens: principal.budget?.monthTokens ?? monthTokens,
  };
}

/**
 * The grant to ask for a send of `bodyChars` characters to `agent`, or null: no day or month
 * budget applies (a model call then reserves nothing), or the budgets are not known here.
 */
export function grantAsk(
  config: Config,
  principal: Principal,
  agent: Pick<AgentDefinition, "maxTokens">,
  bodyChars: number,
): GrantAsk | null {
  const budgets = knownBudgets(config, principal);
  if (!budgets || (budgets.dayTokens <= 0 && budgets.monthTokens <= 0)) return null;
  const prompt = GRANT_PROMPT_TOKENS + Math.ceil(Math.max(0, bodyChars) / 4);
  return {
    tokens: callReservation(prompt, agent.maxTokens),
    dayLimit: budgets.dayTokens,
    monthLimit: budgets.monthTokens,
  };
}

/** Releases a grant: its reservation settled at 0 (nothing spent). */
export function releaseGrant(env: Env, grant: BudgetGrant): Promise<void> {
  return userObject(env, grant.counters).settle(grant.key, 0);
}

/**
 * A grant on its way from the edge to a task: taken once, by the send that hands it to a task
 * object; the edge releases it if no send took it by the time the response ended.
 */
export class GrantHandoff implements GrantSource {
  #grant: BudgetGrant | null;

  constructor(grant: BudgetGrant) {
    this.#grant = grant;
  }

  /** Releases the grant if no send took it (once). */
  release(env: Env): Promise<void> | null {
    const grant = this.take();
    return grant ? releaseGrant(env, grant) : null;
  }

  /** The grant, once (null after): the task it is given to takes it or releases it. */
  take(): BudgetGrant | null {
    const grant = this.#grant;
    this.#grant = null;
    return grant;
  }
}
