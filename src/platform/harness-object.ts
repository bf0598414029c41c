/**
 * What every Durable Object of the harness shares: its bindings seen through the storage meter
 * (a no-op unless STORAGE_METER is on), its SQL statements counted under `label`, and its
 * storage opened before the first call reaches it ({@link HarnessObject.open}, under
 * blockConcurrencyWhile; again after an erasure). Opening writes nothing: an object whose
 * database holds nothing (reached by a name nobody created) stays without storage until its first
 * write (see store/sqlite-migrations.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { meterObjectSql } from "./ledger.ts";
import { meteredEnv } from "./storage-meter.ts";

/** A Durable Object of the harness. */
export abstract class HarnessObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, rawEnv: Env, label: string) {
    super(ctx, meteredEnv(rawEnv));
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
