/**
 * The budget grant a task object holds for its next model call (users/budget-grant.ts): the
 * reservation the request's admission made, handed over with a message the task takes. The budget
 * gate takes it as that call's reservation (task/turn/budget-gate.ts); a grant nothing takes is
 * released: one that came with a message the task did not take (a resent one, a refused one, a
 * busy or ended task), one a newer grant replaces, and the one still held when the task settles.
 * In memory only: after an object reset the held grant is forgotten and its reservation stops
 * counting at its expiry (an over-count, never an overspend).
 */
import type { BudgetGrant } from "../../protocol/app-types.ts";
import { releaseGrant } from "../../users/budget-grant.ts";

/** Keys remembered (held, taken or refused): a retried send's grant is handled once. */
const SEEN_KEPT = 16;

export class HeldGrant {
  readonly #env: Env;
  readonly #background: (work: Promise<void>) => void;
  #held: BudgetGrant | null = null;
  /** Keys of the grants this object held or refused: a retried call brings one again. */
  readonly #seen: string[] = [];

  constructor(env: Env, background: (work: Promise<void>) => void) {
    this.#env = env;
    this.#background = background;
  }

  /** Holds `grant` for the next model call (releasing one held before). */
  hold(grant: BudgetGrant | undefined): void {
    if (!grant || this.#known(grant)) return;
    this.release();
    this.#held = grant;
    this.#remember(grant.key);
  }

  /**
   * Releases `grant` unless this object holds or took it: its message was not taken. Its key is
   * remembered: a retry of the call that brought it is not given a released reservation.
   */
  refuse(grant: BudgetGrant | undefined): void {
    if (!grant || this.#known(grant)) return;
    this.#remember(grant.key);
    this.#release(grant);
  }

  /**
   * The held grant, if it was made on `counters` (the user object the call reserves on), for the
   * call to take as its reservation; one made on another object is released. Null when none.
   */
  take(counters: string): BudgetGrant | null {
    const grant = this.#held;
    this.#held = null;
    if (!grant || grant.counters === counters) return grant;
    this.#release(grant);
    return null;
  }

  /** Releases the held grant, if any (the task settled without a model call taking it). */
  release(): void {
    const grant = this.#held;
    this.#held = null;
    if (grant) this.#release(grant);
  }

  #known(grant: BudgetGrant): boolean {
    return this.#seen.includes(grant.key);
  }

  #remember(key: string): void {
    this.#seen.push(key);
    if (this.#seen.length > SEEN_KEPT) this.#seen.shift();
  }

  #release(grant: BudgetGrant): void {
    this.#background(releaseGrant(this.#env, grant));
  }
}
