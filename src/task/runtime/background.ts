/**
 * A task object's background work: what it keeps alive after a call returns (the index row,
 * push deliveries, the conversation's release, a parent's report, cancelling sub-agents). Each
 * piece's failure is logged, never thrown; {@link BackgroundWork.idle} waits for all of it, so an
 * erasure deletes the task's storage only once nothing is left to write to it.
 */
import { log } from "../../platform/logging.ts";

/** The work in flight of one object instance. */
export class BackgroundWork {
  readonly #ctx: DurableObjectState;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(ctx: DurableObjectState) {
    this.#ctx = ctx;
  }

  /** Keeps `work` alive after the current call returns; its failure is logged. */
  keep(work: Promise<void>): void {
    const run = work.catch((error) =>
      log("error", "background job failed", { error: String(error) }),
    );
    this.#inFlight.add(run);
    void run.finally(() => this.#inFlight.delete(run));
    this.#ctx.waitUntil(run);
  }

  /** Resolves once the work kept so far, and any it kept in turn, has finished. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }
}
