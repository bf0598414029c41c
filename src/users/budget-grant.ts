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
 * estimate fits and the grant is younger than {@link GRANT_TRUSTED_MS}, no call; else the same
 * key is reserved again at the estimate, checked against the budgets as any reservation), or
 * releases it (settled at 0) when it does not take that message or settles without a model call.
 * A grant no send handed to a task (a reply without a task, a send refused at the edge) is
 * released by the edge when the response ends. A grant the task held when its object was reset,
 * or whose send failed past its retries, stops counting with the reservation's expiry
 * (user-object.ts): an over-count for at most 15 minutes, never an overspend.
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

/** The most of a body's characters a grant counts (a hostile body cannot make it hold more). */
const GRANT_BODY_CHARS = 256 * 1024;

/**
 * How long after its admission a grant is taken as it is. Its reservation expires with any other
 * (15 minutes: user-object.ts); a call taking it within a minute has the rest, as a fresh
 * reservation would. A grant older than this (its task waited its turn in a conversation) is
 * reserved again under its key: its reservation may have expired and the budget been spent since.
 */
export const GRANT_TRUSTED_MS = 60_000;

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
  const body = Math.min(Math.max(0, bodyChars), GRANT_BODY_CHARS);
  const prompt = GRANT_PROMPT_TOKENS + Math.ceil(body / 4);
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
