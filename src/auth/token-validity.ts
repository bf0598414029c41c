/**
 * Whether tokens still stand, for the open streams that re-check them (edge/sse.ts). Every
 * stream of an isolate re-checks at the same moments (their timers are aligned to the clock), and
 * the checks asked within {@link GATHER_MS} of each other are answered by one D1 statement for all
 * their tokens (at most {@link MAX_PER_STATEMENT} bound parameters each, D1's limit): 1,000 open
 * streams cost one to ten queries per re-check period, not 1,000. Validity only (the token not
 * revoked, its user not disabled), never the principal: a stream's role is the one it was opened
 * with, and no cache here can keep a stale role alive.
 *
 * The statement runs in the context of the request that began the gathering; if that request ends
 * first, the others do not wait for it past {@link FALLBACK_MS}, they ask alone.
 */

/** How long a check waits for the isolate's other streams' checks before the query runs. */
export const GATHER_MS = 25;
/** How long a check waits for a gathered answer before it queries alone. */
export const FALLBACK_MS = 2_000;
/** D1's bound parameters per statement. */
export const MAX_PER_STATEMENT = 100;

type Waiter = (valid: boolean) => void;
interface Gathering {
  waiters: Map<string, Waiter[]>;
}

/** One gathering per database binding (one in production; tests make their own). */
const gatherings = new WeakMap<D1Database, Gathering>();

/** The token hashes of `hashes` that still stand (chunked statements). */
export async function validTokens(db: D1Database, hashes: string[]): Promise<Set<string>> {
  const valid = new Set<string>();
  for (let i = 0; i < hashes.length; i += MAX_PER_STATEMENT) {
    const chunk = hashes.slice(i, i + MAX_PER_STATEMENT);
    const { results } = await db
      .prepare(
        `SELECT t.hash AS hash FROM tokens t JOIN users u ON u.id = t.user_id
         WHERE t.hash IN (${chunk.map(() => "?").join(", ")})
           AND t.revoked_at IS NULL AND u.disabled_at IS NULL`,
      )
      .bind(...chunk)
      .all<{ hash: string }>();
    for (const row of results) valid.add(row.hash);
  }
  return valid;
}

/** Answers every waiter of `gathering` with one query (a failed query: still valid). */
async function answer(db: D1Database, gathering: Gathering): Promise<void> {
  const waiters = gathering.waiters;
  gathering.waiters = new Map();
  const valid = await validTokens(db, [...waiters.keys()]).catch(() => null);
  for (const [hash, list] of waiters) for (const w of list) w(valid === null || valid.has(hash));
}

/** Whether the token of `hash` still stands, asked together with the isolate's other checks. */
export function tokenStillStands(db: D1Database, hash: string): Promise<boolean> {
  let gathering = gatherings.get(db);
  if (!gathering) {
    gathering = { waiters: new Map() };
    gatherings.set(db, gathering);
  }
  const current = gathering;
  const gathered = new Promise<boolean>((resolve) => {
    const first = current.waiters.size === 0;
    current.waiters.set(hash, [...(current.waiters.get(hash) ?? []), resolve]);
    if (first) setTimeout(() => void answer(db, current), GATHER_MS);
  });
  let fallback: ReturnType<typeof setTimeout> | undefined;
  const alone = new Promise<boolean>((resolve) => {
    fallback = setTimeout(() => {
      validTokens(db, [hash]).then(
        (valid) => resolve(valid.has(hash)),
        () => resolve(true),
      );
    }, FALLBACK_MS);
  });
  return Promise.race([gathered, alone]).finally(() => clearTimeout(fallback));
}
