/** The retention sweep run to its end, pass after pass (each pass within Workers Free's limits). */
import { sweepExpired } from "../../src/privacy/retention.ts";

/** Runs the sweep's passes at `now` until none is left; the index rows deleted in all. */
export async function sweepAll(env: Env, now: number): Promise<number> {
  let swept = 0;
  for (let more = true; more; ) {
    const pass = await sweepExpired(env, now);
    swept += pass.swept;
    more = pass.more;
  }
  return swept;
}
