/**
 * The budget grant a task object holds for its first model call (users/budget-grant.ts): prepared
 * when the task is made, reserved when the step begins its reads for the prompt (`begin`: the two
 * round trips side by side, not one after the other). Only the first: a later call's prompt holds
 * the conversation, which a grant sized before reading it would not cover (its key reserved
 * again: two calls where the budget gate makes one). The budget gate takes it as that
 * call's reservation (task/turn/budget-gate.ts), waiting for it if it is still being reserved; a
 * grant nothing takes is released: one a newer grant replaces, and the one still held when the
 * task settles. In memory only: after an object reset the held grant is forgotten and
 * its reservation stops counting at its expiry (an over-count, never an overspend).
 */
import { loadConfig } from "../../config/config.ts";
import { userCounters } from "../../platform/object-names.ts";
import type { BudgetGrant } from "../../protocol/app-types.ts";
import type { Message } from "../../protocol/wire.ts";
import { type GrantSpec, releaseGrant, reserveGrant } from "../../users/budget-grant.ts";
import type { BudgetHint } from "../../users/limits.ts";
import type { TaskRecord } from "../store/task-store.ts";

export class HeldGrant {
  readonly #env: Env;
  readonly #background: (work: Promise<void>) => void;
  /** The grant prepared, not yet being reserved. */
  #spec: GrantSpec | null = null;
  /** The grant being reserved or reserved (null: none, or refused). */
  #held: Promise<BudgetGrant | null> | null = null;

  constructor(env: Env, background: (work: Promise<void>) => void) {
    this.#env = env;
    this.#background = background;
  }

  /**
   * Prepares the grant of the task `record`'s first model call, for `message` to an agent of
   * `maxTokens`, under the owner's budget overrides `hint` (releasing one held before).
   */
  prepare(
    record: Pick<TaskRecord, "id" | "owner" | "counters"> | null,
    message: Message,
    maxTokens: number,
    hint: BudgetHint | null,
  ): void {
    this.release();
    if (!record) return;
    this.#spec = {
      // Never a key used before (a message id can come again: budget-gate.ts).
      key: `grant:${record.id}:${message.messageId}:${crypto.randomUUID()}`,
      counters: record.counters ?? userCounters(record.owner),
      owner: record.owner,
      hint,
      maxTokens,
      messageChars: JSON.stringify(message.parts).length,
    };
  }

  /** Starts reserving the prepared grant, if there is one. */
  begin(): void {
    const spec = this.#spec;
    this.#spec = null;
    if (!spec) return;
    // A failed reservation is no grant: the call reserves its estimate itself.
    const pending = reserveGrant(this.#env, loadConfig(this.#env), spec).catch(() => null);
    this.#held = pending;
    this.#background(pending.then(() => undefined));
  }

  /**
   * The held grant, once reserved, if it was made on `counters` (the user object the call
   * reserves on), for the call to take as its reservation; one made on another object is
   * released. Null when none.
   */
  async take(counters: string): Promise<BudgetGrant | null> {
    this.begin();
    const pending = this.#held;
    this.#held = null;
    const grant = pending ? await pending : null;
    if (!grant || grant.counters === counters) return grant;
    this.#background(releaseGrant(this.#env, grant));
    return null;
  }

  /** Releases the held grant, if any (the task settled without a model call taking it). */
  release(): void {
    this.#spec = null;
    const pending = this.#held;
    this.#held = null;
    if (pending)
      this.#background(
        pending.then((grant) => (grant ? releaseGrant(this.#env, grant) : undefined)),
      );
  }
}
