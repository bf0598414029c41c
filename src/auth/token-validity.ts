/**
 * Whether tokens still stand, for the open streams that re-check them (edge/sse.ts). Every
 * stream of an isolate re-checks at the same moments (their timers are aligned to the clock), and
 * the first check of a moment asks D1 about every token the isolate's streams asked about lately,
 * one statement per {@link MAX_PER_STATEMENT} tokens (D1's bound parameters): 1,000 open streams
 * cost one to ten queries per re-check period, not 1,000. The other checks of that moment read
 * the answer from this isolate's memory.
 *
 * Only data is shared between requests, never a promise: a check waits for another request's
 * query by looking at the answers every {@link POLL_MS} on its own timer, and once that query has
 * run for {@link FALLBACK_MS} it asks alone (the request that queried may have ended). An
 * answer is used for {@link FRESH_MS}, well inside the re-check period. Validity only (the token
 * not revoked, its user not disabled), never the principal: a stream's role is the one it was
 * opened with, so no cache here keeps a stale role alive.
 */

/** How long the first check of a moment waits for the others to name their tokens. */
export const GATHER_MS = 25;
/** How long an answer about a token is used. */
export const FRESH_MS = 1_000;
/** How often a check looks for the answer another request is fetching. */
export const POLL_MS = 25;
/** How long a check waits for another request's query before it asks alone. */
export const FALLBACK_MS = 2_000;
/** A token no stream asked about for this long is no longer asked about. */
export const FORGET_MS = 15_000;
/** D1's bound parameters per statement. */
export const MAX_PER_STATEMENT = 100;

interface Shared {
  /** What D1 said about each token, and when. */
  known: Map<string, { valid: boolean; at: number }>;
  /** The tokens streams asked about, and when last. */
  asked: Map<string, number>;
  /** When a query for the isolate's tokens began, 0 when none runs. */
  querying: number;
}

/** One state per database binding (one in production; tests make their own). */
const states = new WeakMap<D1Database, Shared>();

function sharedOf(db: D1Database): Shared {
  let shared = states.get(db);
  if (!shared) {
    shared = { known: new Map(), asked: new Map(), querying: 0 };
    states.set(db, shared);
  }
  return shared;
}

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

/** The fresh answer about `hash`, if there is one. */
function freshAnswer(shared: Shared, hash: string): boolean | undefined {
  const known = shared.known.get(hash);
  return known && Date.now() - known.at < FRESH_MS ? known.valid : undefined;
}

/** Asks D1 about every token streams asked about lately, and records the answers. */
async function askAll(db: D1Database, shared: Shared): Promise<void> {
  shared.querying = Date.now();
  await sleep(GATHER_MS);
  const now = Date.now();
  for (const [hash, at] of shared.asked) if (now - at > FORGET_MS) shared.asked.delete(hash);
  for (const [hash, known] of shared.known)
    if (now - known.at > FORGET_MS) shared.known.delete(hash);
  const hashes = [...shared.asked.keys()];
  try {
    const valid = await validTokens(db, hashes);
    const at = Date.now();
    for (const hash of hashes) shared.known.set(hash, { valid: valid.has(hash), at });
  } finally {
    shared.querying = 0;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether the token of `hash` still stands, asked together with the isolate's other streams'
 * tokens (a query that fails counts as still standing).
 */
export async function tokenStillStands(db: D1Database, hash: string): Promise<boolean> {
  const shared = sharedOf(db);
  shared.asked.set(hash, Date.now());
  // Another request's query, unless it has run for too long (that request may have ended).
  const busy = () => shared.querying !== 0 && Date.now() - shared.querying < FALLBACK_MS;
  while (busy()) {
    const answer = freshAnswer(shared, hash);
    if (answer !== undefined) return answer;
    await sleep(POLL_MS);
  }
  const answer = freshAnswer(shared, hash);
  if (answer !== undefined) return answer;
  try {
    await askAll(db, shared);
  } catch {
    return true;
  }
  return freshAnswer(shared, hash) ?? true;
}
