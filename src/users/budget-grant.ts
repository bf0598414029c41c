/**
 * A task's budget grant: a new task's object reserves, on the owner's user object, what its first
 * model call would reserve, beside the workspace reads of its first step instead of after them (the call's exact estimate needs the prompt, which needs those
 * reads): one round trip fewer before the first model byte. The prompt is not known yet, so the
 * grant is the agent's output limit plus {@link GRANT_PROMPT_TOKENS} and the message's size,
 * weighted as any reservation is (model/budget-tokens.ts). A grant never refuses anything: when
 * the day or month budget cannot hold it there is none, and the model call reserves its exact
 * estimate as before (and is refused with the budget's message).
 *
 * The task object holds the grant (task/runtime/held-grant.ts); the budget gate takes it as the
 * call's reservation (task/turn/budget-gate.ts: when the call's estimate fits and the grant is
 * younger than {@link GRANT_TRUSTED_MS}, no call; else the same key is reserved again at the
 * estimate, checked against the budgets as any reservation), and one nothing took is released
 * (settled at 0). A grant held when the object was reset stops counting with the reservation's
 * expiry (user-object.ts): an over-count for at most 15 minutes, never an overspend.
 */
import type { Config } from "../config/config.ts";
import { callReservation } from "../model/budget-tokens.ts";
import type { BudgetGrant } from "../protocol/app-types.ts";
import { type BudgetHint, budgetsFor, userObject } from "./limits.ts";

/**
 * The prompt tokens a grant allows besides the message's: a first call's system prompt, tools and
 * environment note (a bundled agent's first call estimates about 7-8k: docs/benchmarks.md).
 */
export const GRANT_PROMPT_TOKENS = 12_288;

/** The most of a message's characters a grant counts (a hostile body cannot make it hold more). */
const GRANT_BODY_CHARS = 256 * 1024;

/**
 * How long after it was reserved a grant is taken as it is. Its reservation expires with any
 * other (15 minutes: user-object.ts); a call taking it within a minute has the rest, as a fresh
 * reservation would. A grant older than this (its task waited its turn in a conversation) is
 * reserved again under its key: its reservation may have expired and the budget been spent since.
 */
export const GRANT_TRUSTED_MS = 60_000;

/** What a grant is reserved for: whose budgets, on which counters, for what call. */
export interface GrantSpec {
  /** The reservation's key (the task and the message it took). */
  key: string;
  /** The user object keeping the owner's day and month (`user:<owner>`, `ip:<address>`). */
  counters: string;
  owner: string;
  /** The owner's budget overrides the message's request found. */
  hint: BudgetHint | null;
  /** The agent's output limit. */
  maxTokens: number;
  /** The message's size, in characters. */
  messageChars: number;
}

/** The tokens a grant reserves for a message of `chars` characters to an agent of `maxTokens`. */
export function grantTokens(chars: number, maxTokens: number): number {
  const body = Math.min(Math.max(0, chars), GRANT_BODY_CHARS);
  return callReservation(GRANT_PROMPT_TOKENS + Math.ceil(body / 4), maxTokens);
}

/**
 * Reserves the grant of `spec`, or answers null: no day or month budget applies (a model call then
 * reserves nothing), or they cannot hold it.
 */
export async function reserveGrant(
  env: Env,
  config: Config,
  spec: GrantSpec,
): Promise<BudgetGrant | null> {
  const budgets = await budgetsFor(env, config, spec.owner, spec.hint);
  if (budgets.dayTokens <= 0 && budgets.monthTokens <= 0) return null;
  const tokens = grantTokens(spec.messageChars, spec.maxTokens);
  const answer = await userObject(env, spec.counters).reserve(
    spec.key,
    tokens,
    budgets.dayTokens,
    budgets.monthTokens,
  );
  if (!answer.ok) return null;
  return {
    key: spec.key,
    tokens,
    counters: spec.counters,
    trustedUntil: Date.now() + GRANT_TRUSTED_MS,
  };
}

/** Releases a grant: its reservation settled at 0 (nothing spent). */
export function releaseGrant(env: Env, grant: BudgetGrant): Promise<void> {
  return userObject(env, grant.counters).settle(grant.key, 0);
}
