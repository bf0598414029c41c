/**
 * The deployed profile as the benches run it (`npm run dev -- --deployed`: closed auth, the
 * deployed rate limits and budgets): the few vars a bench sets on top, and the user it sends as.
 * Every call stays on the deployed path (the user object admits each message and reserves each
 * model call's budget); only the numbers are raised, so a bench's thousands of tasks and its 32
 * concurrent clients are never refused:
 *
 * - `RATE_MESSAGES_PER_MINUTE` 1,000,000 (deployed: 60). Not 0: 0 turns the admission call off.
 * - `AUTH_FAILURES_PER_MINUTE` 0 (deployed: 20): concurrent first uses of the one good token from
 *   127.0.0.1 would each count as an attempt not yet found good, and more than 20 at once see 429.
 *   This one does leave a call out: the throttle's, for a token not checked in the last 5 s.
 * - `ADMIN_API_KEY`: the bench's, to set the user's budgets (and read the storage meter).
 * - The user `bench` (`npm run users -- add`, on the server's local D1) with day and month budget
 *   overrides of 10^10 tokens, the most the admin API takes (`POST /api/admin/users/bench/budget`;
 *   deployed: 10 and 100 million, about 5,000 scripted tasks a day). Not 0: 0 turns the
 *   reservation calls off. The task budget stays the deployed one (5 million; a one-turn task
 *   spends about 2,000).
 *
 * Node only.
 */
import type { DevServer } from "../test/e2e/dev-server.ts";
import { addUser } from "../test/e2e/users.ts";

/** The bench's admin key. */
export const BENCH_ADMIN_KEY = "bench-admin";

/** The vars a bench sets on the deployed profile (see the file's header). */
export const DEPLOYED_BENCH_VARS: Readonly<Record<string, string>> = {
  ADMIN_API_KEY: BENCH_ADMIN_KEY,
  AUTH_FAILURES_PER_MINUTE: "0",
  RATE_MESSAGES_PER_MINUTE: "1000000",
};

/** The bench user's day and month budgets (tokens). */
const BENCH_BUDGET = 10_000_000_000;

/**
 * Adds the user `bench` on `server`'s state with the bench's budgets (the server must run with
 * {@link DEPLOYED_BENCH_VARS}); the headers its calls carry.
 */
export async function benchUser(
  server: Pick<DevServer, "persistDir" | "url">,
): Promise<Record<string, string>> {
  const token = await addUser(server, "bench");
  if (!token) throw new Error("users add printed no token");
  const response = await fetch(`${server.url}/api/admin/users/bench/budget`, {
    method: "POST",
    headers: { Authorization: `Bearer ${BENCH_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ dayTokens: BENCH_BUDGET, monthTokens: BENCH_BUDGET }),
  });
  if (!response.ok) throw new Error(`setting the bench user's budget: HTTP ${response.status}`);
  return { Authorization: `Bearer ${token}` };
}
