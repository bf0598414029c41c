/**
 * What every Durable Object of the harness shares: its bindings seen through the local limit guard,
 * the storage meter, the fault injector and the retries (platform/bindings.ts: all but the retries
 * are no-ops unless CF_PLAN or STORAGE_METER is set), the injector's resets, its
 * methods and SQLite guarded (platform/limit-guard.ts), its SQL statements counted under `label`,
 * and its
 * storage opened before the first call reaches it ({@link HarnessObject.open}, under
 * blockConcurrencyWhile; again after an erasure). Opening writes nothing: an object whose
 * database holds nothing (reached by a name nobody created) stays without storage until its first
 * write (see store/sqlite-migrations.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { platformEnv } from "./bindings.ts";
import { injectResets } from "./faults/fault-injector.ts";
import { meterObjectSql } from "./ledger.ts";
import { guardObject, guardPlan } from "./limit-guard.ts";

/** A Durable Object of the harness. */
export abstract class HarnessObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, rawEnv: Env, label: string) {
    super(ctx, platformEnv(rawEnv));
    // Before the meter: the meter's patch of `sql.exec` wraps the guard's.
    guardObject(this, HarnessObject.prototype, ctx, rawEnv, label);
    // The fault injector's resets (FAULTS), only where the guard is on: dev and tests.
    if (guardPlan(rawEnv)) injectResets(this, HarnessObject.prototype, label);
    meterObjectSql(ctx, label);
    void ctx.blockConcurrencyWhile(async () => {
      // After the subclass's own fields exist (they are set once this constructor returns).
      await Promise.resolve();
      await this.open();
    });
  }

  /** Opens the object's storage (migrations, in-memory copies, recovery); creates none. */
  protected abstract open(): void | Promise<void>;
}
