/**
 * Throttling of failed credentials (`AUTH_FAILURES_PER_MINUTE`, default 20; 0 = off), per guesser:
 * a credential that is not already known good is checked only while its client's address
 * (`CF-Connecting-IP`; an IPv6 address by its /64, platform/client-network.ts) has seen fewer
 * than that many attempts not found good in the last minute; past it, the answer is a 429 with
 * Retry-After before the credential is looked at, so a guess gets no answer at all. Counts are
 * kept exactly by user objects named `auth:ip:<address>` (users/user-object.ts): an attempt
 * counts as a failure from the moment it is admitted until its credential is found good, so
 * concurrent guesses cannot slip past the count.
 *
 * Nothing is counted per credential (nor per any part of one another party could name), so a
 * good credential is never refused for failures from other addresses: no one can lock another's
 * key out. From its own address it waits with the guesses (it could be the guess that hits).
 */
import { HttpError } from "../platform/http-error.ts";
import { failuresFromIp } from "../platform/object-names.ts";
import { stubByName } from "../platform/object-stub.ts";

/** The counters a credential attempt from `ip` is admitted by: its guesser's. */
export function failureKeys(ip: string | null): string[] {
  return [failuresFromIp(ip)];
}

/** An admitted attempt: {@link AdmittedAttempt.succeeded} forgets it once the credential is good. */
export interface AdmittedAttempt {
  succeeded(): Promise<void>;
}

/**
 * Admits one credential attempt against every counter in `keys`, or throws the 429 of the
 * longest wait (the counters that did admit it forget it again: no credential was looked at).
 */
export async function admitAttempt(
  env: Env,
  keys: readonly string[],
  perMinute: number,
): Promise<AdmittedAttempt> {
  // The user objects that count failures (as users/limits.ts userObject names them).
  const counters = keys.map((key) => stubByName(env.USERS, key));
  const results = await Promise.all(
    counters.map((counter) => counter.attempt(perMinute, crypto.randomUUID())),
  );
  const release = () =>
    Promise.all(
      results.map((result, i) =>
        result.ok ? counters[i]?.releaseAttempt(result.attempt) : undefined,
      ),
    ).then(() => undefined);
  const waits = results.flatMap((result) => (result.ok ? [] : [result.retryAfterSeconds]));
  if (waits.length > 0) {
    await release();
    throw tooManyFailures(perMinute, Math.max(...waits));
  }
  return { succeeded: release };
}

/** The 429 of a client past the limit. */
function tooManyFailures(perMinute: number, retryAfter: number): HttpError {
  return new HttpError(
    429,
    `Too many failed credentials: the limit is ${perMinute} a minute. Retry after ${retryAfter} s.`,
    { headers: { "Retry-After": String(retryAfter) } },
  );
}

/** Client IPs this isolate found past the limit, until when (epoch ms). */
const blocked = new Map<string, number>();

/**
 * Runs `check` of a credential that is never cached and never guessed (a delegation token: a
 * signature, not a secret), counting only its refusals: a 401 is recorded against the client IP's
 * counter, and once that is full the answer is the 429 and this isolate refuses the IP until the
 * minute passes, before checking anything. A good token costs no counter call; a check that could
 * not be made (503) is not counted.
 */
export async function countingRefusals<T>(
  env: Env,
  ip: string | null,
  perMinute: number,
  check: () => Promise<T>,
): Promise<T> {
  const key = failuresFromIp(ip);
  const until = blocked.get(key) ?? 0;
  if (until > Date.now()) throw tooManyFailures(perMinute, Math.ceil((until - Date.now()) / 1000));
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 401) throw error;
    const recorded = await stubByName(env.USERS, key).attempt(perMinute, crypto.randomUUID());
    if (recorded.ok) throw error;
    if (blocked.size > 10_000) blocked.clear();
    blocked.set(key, Date.now() + recorded.retryAfterSeconds * 1000);
    throw tooManyFailures(perMinute, recorded.retryAfterSeconds);
  }
}
