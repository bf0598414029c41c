/**
 * Throttling of failed credentials (`AUTH_FAILURES_PER_MINUTE`, default 20; 0 = off): a
 * credential that is not already known good is checked only while its client IP
 * (`CF-Connecting-IP`) and its token prefix have each seen fewer than that many attempts not found
 * good in the last minute; past either, the answer is a 429 with Retry-After before the credential
 * is looked at, so a guess gets no answer at all. Counts are kept exactly by user objects named
 * `auth:ip:<address>` and `auth:token:<prefix>` (users/user-object.ts): an attempt counts as a
 * failure from the moment it is admitted until its credential is found good, so concurrent
 * guesses cannot slip past the count.
 *
 * The prefix is 8 characters of the credential's secret part: after `a2a_` for user tokens, the
 * signature's first 8 for a JWT (every JWT begins with the same header), else the first 8. A good
 * credential is therefore never refused for failures against another prefix from other IPs;
 * failures from its own IP, or against its own prefix, do refuse it until the minute passes.
 */
import { HttpError } from "../platform/http-error.ts";
import { failuresFromIp, failuresOfPrefix } from "../platform/object-names.ts";
import { stubByName } from "../platform/object-stub.ts";
import { looksLikeJwt } from "./jwt.ts";

/** How many characters of a credential name its prefix counter. */
export const PREFIX_CHARS = 8;

/** The prefix a credential's failures are counted under (see the file's comment). */
export function credentialPrefix(credential: string): string {
  if (credential.startsWith("a2a_")) return credential.slice(4, 4 + PREFIX_CHARS);
  if (looksLikeJwt(credential))
    return credential.slice(credential.lastIndexOf(".") + 1).slice(0, PREFIX_CHARS);
  return credential.slice(0, PREFIX_CHARS);
}

/** The counters a credential attempt from `ip` is admitted by. */
export function failureKeys(ip: string | null, credential: string): string[] {
  return [failuresFromIp(ip), failuresOfPrefix(credentialPrefix(credential))];
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
  const results = await Promise.all(counters.map((counter) => counter.attempt(perMinute)));
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
    const recorded = await stubByName(env.USERS, key).attempt(perMinute);
    if (recorded.ok) throw error;
    if (blocked.size > 10_000) blocked.clear();
    blocked.set(key, Date.now() + recorded.retryAfterSeconds * 1000);
    throw tooManyFailures(perMinute, recorded.retryAfterSeconds);
  }
}
