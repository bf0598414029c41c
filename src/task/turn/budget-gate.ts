/**
 * The token budget gate of a task's model calls: before each call its worst case is reserved,
 * after it the real use is settled, in tokens weighted by their price (model/budget-tokens.ts),
 * against every budget that counts it:
 *  - the task's own (`BUDGET_TASK_TOKENS` or the owner's override), from its loop's usage;
 *  - the owner's day and month, kept by the user object `countersKey` (`user:<owner>`, or
 *    `ip:<address>` for an anonymous caller's task);
 *  - for a task a trusted issuer delegated, that issuer's day and month (`BUDGET_ISSUER_*`), kept
 *    by `issuer:<issuer>` and spent by every caller it delegates together: each of a public peer's
 *    anonymous conversations is a user of its own here, and must not bring a fresh budget.
 * A budget of 0 is not reserved against, but its spend is still counted, so a budget set later
 * starts from the true spend. Each reservation has a key of its own; a step run again after an
 * object reset reserves anew, and the reservation its first run made stops counting at its expiry
 * (an over-count for at most 15 minutes).
 */
import type { Config } from "../../config/config.ts";
import type { StepDeps } from "../../loop/step-types.ts";
import { budgetTokens } from "../../model/budget-tokens.ts";
import { issuerCounters } from "../../platform/object-names.ts";
import type { BudgetGrant } from "../../protocol/app-types.ts";
import { releaseGrant } from "../../users/budget-grant.ts";
import { budgetsFor, userObject } from "../../users/limits.ts";
import type { BudgetRefusal } from "../../users/user-object.ts";
import type { TaskRecord } from "../store/task-store.ts";
import type { TurnTask } from "./turn.ts";

type Limits = { dayTokens: number; monthTokens: number };

/** What a counter's reservation answers: the key the call settles under, or the refusal. */
type Reserved = { key: string; refusal: BudgetRefusal | null };

/**
 * One user object's share of the current call: reserved (or only counted), then settled. A
 * `grant` (the task's reservation made ahead on this object, held-grant.ts) is the call's reservation
 * when it holds the estimate and is still trusted (users/budget-grant.ts): no call; else its key
 * is reserved again at the estimate.
 */
function counter(env: Env, name: string, background: (work: Promise<void>) => void) {
  const stub = userObject(env, name);
  return {
    async reserve(
      key: string,
      estimate: number,
      limits: Limits,
      grant: BudgetGrant | null = null,
    ): Promise<Reserved> {
      const limited = limits.dayTokens > 0 || limits.monthTokens > 0;
      if (grant && !limited) background(releaseGrant(env, grant));
      if (!limited) return { key, refusal: null };
      if (grant && grant.tokens >= estimate && Date.now() < grant.trustedUntil)
        return { key: grant.key, refusal: null };
      const use = grant?.key ?? key;
      const answer = await stub.reserve(use, estimate, limits.dayTokens, limits.monthTokens);
      return { key: use, refusal: answer.ok ? null : answer };
    },
    // Retried by the bindings, it counts once: the user object keeps the settlement's mark.
    settle: (key: string, tokens: number) => stub.settle(key, tokens),
  };
}

/** Why a call is refused: whose budget of which period is spent, and when it renews. */
function spentText(answer: BudgetRefusal, estimate: number, whose: string): string {
  const period = answer.scope === "day" ? "daily" : "monthly";
  return `The ${period} token budget${whose} is spent (${answer.used} of ${answer.limit} tokens used; the next model call needs up to ${estimate}). It renews at the start of the next ${answer.scope} (UTC).`;
}

/** The issuer that delegated the task (its metadata's `delegation`), if a trusted issuer did. */
function delegatingIssuer(record: Pick<TaskRecord, "metadata">): string | null {
  const delegation = record.metadata.delegation;
  return typeof delegation === "object" &&
    delegation !== null &&
    "issuer" in delegation &&
    typeof delegation.issuer === "string"
    ? delegation.issuer
    : null;
}

/** The gate of the task `record`, whose owner's counters are the user object `countersKey`. */
export function budgetGate(
  env: Env,
  config: Config,
  task: Pick<TurnTask, "background" | "budgetHint" | "grant"> & {
    loopState: Pick<TurnTask["loopState"], "get">;
  },
  record: Pick<TaskRecord, "id" | "owner" | "metadata">,
  countersKey: string,
): StepDeps["budget"] {
  const background = (work: Promise<void>) => task.background(work);
  const owner = counter(env, countersKey, background);
  const issuer = delegatingIssuer(record);
  const pool = issuer === null ? null : counter(env, issuerCounters(issuer), background);
  // The keys the current call settles under: the owner's (a taken grant's), the issuer's.
  let key = "";
  let poolKey = "";
  return {
    reserve: async (estimate) => {
      const budgets = await budgetsFor(env, config, record.owner, task.budgetHint);
      const loop = task.loopState.get();
      const used = budgetTokens(loop.usage);
      if (budgets.taskTokens > 0 && used + estimate > budgets.taskTokens)
        return `This task reached its token budget (${used} of ${budgets.taskTokens} tokens used; the next model call needs up to ${estimate}).`;
      // Never a key used before: a step run again (its call answered but the turn not committed)
      // must not have its reservation settled by the earlier run's settlement. Retried by the
      // bindings, the same reservation keeps its key.
      const call = `${record.id}:${loop.turn}:${loop.attempt}:${crypto.randomUUID()}`;
      const mine = await owner.reserve(call, estimate, budgets, await task.grant.take(countersKey));
      key = mine.key;
      if (mine.refusal) return spentText(mine.refusal, estimate, "");
      poolKey = call;
      const shared = (await pool?.reserve(call, estimate, config.budgets.issuer))?.refusal;
      if (!shared) return null;
      task.background(owner.settle(key, 0)); // the owner's reservation is not used
      return spentText(shared, estimate, ` of the callers delegated by ${issuer}`);
    },
    // Settled in the background: the next reservation must not wait for it, and seeing the
    // reservation instead of the settlement (if it arrives first) only over-counts.
    settle: async (tokens) => {
      if (!key) return;
      task.background(owner.settle(key, tokens));
      if (pool) task.background(pool.settle(poolKey, tokens));
    },
  };
}
