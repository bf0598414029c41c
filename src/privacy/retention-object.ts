/**
 * The retention sweep's continuation: one Durable Object per deployment whose alarm runs the next
 * pass of the sweep (privacy/retention.ts) while the last one left expired rows, each pass in an
 * invocation of its own, so however much has expired no invocation goes past Workers Free's
 * limits (50 D1 queries). It stores nothing but its alarm.
 */
import { HarnessObject } from "../platform/harness-object.ts";
import { sweepExpired } from "./retention.ts";

/** Between one pass and the next. */
const CONTINUE_MS = 1_000;

/** The sweep's object. */
export class RetentionObject extends HarnessObject {
  constructor(ctx: DurableObjectState, rawEnv: Env) {
    super(ctx, rawEnv, "retention");
  }

  /** Nothing to open: the object keeps no storage. */
  protected override open(): void {}

  /** Runs the next pass soon, unless one is due already. */
  async continueSweep(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + CONTINUE_MS);
  }

  /** One pass; another soon while it left work. */
  override async alarm(): Promise<void> {
    const pass = await sweepExpired(this.env, Date.now());
    if (pass.more) await this.ctx.storage.setAlarm(Date.now() + CONTINUE_MS);
  }
}
