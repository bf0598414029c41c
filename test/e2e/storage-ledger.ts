/**
 * Reading the storage meter and critical-path ledger of a server started with
 * `STORAGE_METER=true` (its admin API, `/api/admin/storage-meter`): the entries of one task run
 * alone, the server quiet before and after, and counts over them. Counts and order only, never
 * times.
 */

/**
 * An entry of the ledger, as its admin API sends it (src/platform/ledger.ts's `LedgerEntry`,
 * written again here: that module is the Worker's, typed against its runtime).
 */
export interface Entry {
  kind: "do" | "d1" | "r2" | "sql" | "mark";
  name: string;
  at: number;
  ms: number;
  sql?: string;
  rows?: number;
  /** Started by work no caller waits for (the ledger's `unawaitedWork`). */
  background?: true;
}
export interface Metered {
  enabled: boolean;
  d1: { statements: number; writes: number; batches: number };
  r2: Record<string, number>;
  r2ClassA: number;
  ledger: { entries: Entry[]; dropped: number; inFlight: number };
}

/** The meter of the server at `url`, read with the admin key `adminKey`. */
export function storageLedger(url: string, adminKey: string) {
  const meter = (method: "GET" | "DELETE") =>
    fetch(`${url}/api/admin/storage-meter`, {
      method,
      headers: { Authorization: `Bearer ${adminKey}` },
    }).then((r) => r.json() as Promise<Metered>);

  /**
   * The meter once the task's background work is done: no timed round trip in flight, and
   * nothing new 300 ms later (a step between two round trips). A slow round trip, however long a
   * loaded machine makes it, is waited for: it is in flight.
   */
  async function settled(): Promise<Metered> {
    // Each read of the meter is an invocation of its own, marked: not the task's work.
    const work = (m: Metered) =>
      JSON.stringify({
        ...m,
        ledger: {
          ...m.ledger,
          entries: m.ledger.entries.filter((e) => e.name !== "invocation fetch"),
        },
      });
    let last = await meter("GET");
    for (let i = 0; i < 200; i++) {
      await new Promise((r) => setTimeout(r, 300));
      const now = await meter("GET");
      const same = work(now) === work(last);
      last = now;
      if (same && now.ledger.inFlight === 0) break;
    }
    return last;
  }

  /** The entries of one task, run alone: the server quiet before and after. */
  async function ledgerOf<T>(run: () => Promise<T>): Promise<{ metered: Metered; body: T }> {
    await settled();
    await meter("DELETE");
    const body = await run();
    return { metered: await settled(), body };
  }

  return { meter, settled, ledgerOf };
}

/** The entries of `kind` (whose name starts with `name`, when given). */
export const count = (entries: Entry[], kind: Entry["kind"], name?: string) =>
  entries.filter((e) => e.kind === kind && (name === undefined || e.name.startsWith(name))).length;

/** The object calls among `entries`, by name, sorted. */
export const objectCalls = (entries: Entry[]) =>
  entries
    .filter((e) => e.kind === "do")
    .map((e) => e.name)
    .sort();
