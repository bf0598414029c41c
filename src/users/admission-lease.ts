/**
 * Admission without a call on the request's path: each isolate holds, per counter key, slices the
 * user object leased to it (admission-ledger.ts `lease`): places in the minute's message window and a
 * spare stream slot, usable for `ADMISSION_LEASE_SECONDS` (20 by default). A request the slices cover is admitted here
 * at once; one they do not makes the call, which admits it and leases the next slices with it. So
 * an isolate's first request of a user (and the first after its slices ran out or ended) waits on
 * the user object; the others do not.
 *
 * The limits hold across isolates: the object counts a slice's places from the moment it leases
 * them until a minute after the lease ends (dated its end, the latest moment of a use), and a spare
 * slot as an open stream. A slice an isolate did not use holds its places only until the isolate's
 * next call says so (`ended`) or its lease ends: a user may be refused early by places leased to
 * another isolate, never admitted past a limit. A stream given a spare slot and ended within its
 * lease gives it back to the isolate, no call made; one still open near the lease's end makes the
 * slot its own (held like any stream's, with a new spare asked for) in a call while it streams.
 *
 * Only data is kept between requests, never a promise (a Worker's I/O belongs to its request).
 */
import { unawaitedWork } from "../platform/ledger.ts";
import { log } from "../platform/logging.ts";
import type { Lease, LeaseUse } from "./admission-ledger.ts";
import { userObject } from "./limits.ts";

/** A spare slot goes to a stream only with this much of its lease left (its takeSpare lands first). */
const SPARE_MARGIN_MS = 5_000;
/** How much later than the isolate's clock a place's use is dated (see takeLocal). */
const CLOCK_SLACK_MS = 1_000;
/** The most places a lease asks for besides its request's own. */
const MAX_EXTRA_PLACES = 20;
/** Counter keys an isolate keeps slices for (past it, it forgets them: only an over-count). */
const MAX_KEYS = 10_000;

/** A lease of places this isolate holds. */
interface Held {
  call: string;
  places: number;
  used: number;
  lastAt: number;
  until: number;
}

/** What this isolate holds for one counter key. */
interface Slices {
  leases: Held[];
  spares: Spare[];
}

/** Per env object (one in production; tests vary the configuration per call). */
const isolates = new WeakMap<object, Map<string, Slices>>();

function slicesOf(env: Env, key: string): Slices {
  let keys = isolates.get(env);
  if (!keys) {
    keys = new Map();
    isolates.set(env, keys);
  }
  let slices = keys.get(key);
  if (!slices) {
    if (keys.size >= MAX_KEYS) keys.clear();
    slices = { leases: [], spares: [] };
    keys.set(key, slices);
  }
  return slices;
}

/**
 * What a request needs admitted: a message (under `perMinute`; 0: none), a stream's slot; and how
 * long the isolate may use what a lease call leases it (`ttlMs`).
 */
export interface Need {
  perMinute: number;
  stream?: { max: number; leaseMs: number };
  ttlMs: number;
}

/**
 * Admitted (with the stream's slot, and how to give it back when the stream ends: after the
 * call that made a spare slot the stream's own, never before it), or the object's refusal.
 */
export type Admitted =
  | { ok: true; slot?: string; close?: () => Promise<void> }
  | { ok: false; retryAfterSeconds: number }
  | { ok: false; streams: number };

/** Places asked for besides a request's own: a tenth of the minute's limit, within bounds. */
const extraPlaces = (perMinute: number) =>
  perMinute > 0 ? Math.min(MAX_EXTRA_PLACES, Math.ceil(perMinute / 10)) : 0;

/** A spare stream slot this isolate holds, and until when it may give it to a stream. */
interface Spare {
  slot: string;
  until: number;
}

/** What a request took of the isolate's slices: a place, a spare slot (each or none). */
interface Taken {
  lease: Held | null;
  spare: Spare | null;
}

/**
 * Takes what `need` asks of the slices that they hold. A place's use is dated a little late
 * ({@link CLOCK_SLACK_MS}): an isolate's clock stands still between I/O, and may differ slightly
 * from the user object's, which dates the window.
 */
function takeLocal(slices: Slices, need: Need, now: number): Taken {
  const lease =
    need.perMinute > 0
      ? (slices.leases.find((l) => l.used < l.places && l.until > now) ?? null)
      : null;
  if (lease) {
    lease.used += 1;
    lease.lastAt = Math.min(lease.until, Math.max(lease.lastAt, now + CLOCK_SLACK_MS));
  }
  const spare = need.stream
    ? (slices.spares.find((s) => s.until - now > SPARE_MARGIN_MS) ?? null)
    : null;
  if (spare) slices.spares = slices.spares.filter((s) => s !== spare);
  return { lease, spare };
}

/** Gives back what a refused or failed request took (its place's date stays: only later). */
function giveBack(slices: Slices, taken: Taken): void {
  if (taken.lease) taken.lease.used -= 1;
  if (taken.spare) slices.spares.push(taken.spare);
}

/**
 * The request taken from the slices: admitted when they cover it whole, else what it took of them
 * and what it still lacks of the user object.
 */
function fromSlices(
  env: Env,
  key: string,
  slices: Slices,
  need: Need,
  background: (work: Promise<unknown>) => void,
): { admitted: Admitted } | { taken: Taken; lacks: { place: boolean; slot: boolean } } {
  const taken = takeLocal(slices, need, Date.now());
  const lacks = { place: need.perMinute > 0 && !taken.lease, slot: !!need.stream && !taken.spare };
  if (lacks.place || lacks.slot) return { taken, lacks };
  return { admitted: admittedWith(env, key, taken.spare, need, background) };
}

/** The leases that ended (used up or expired), taken out of `slices` to report their use. */
function endedLeases(slices: Slices, now: number): LeaseUse[] {
  const ended = slices.leases.filter((l) => l.used >= l.places || l.until <= now);
  slices.leases = slices.leases.filter((l) => !ended.includes(l));
  slices.spares = slices.spares.filter((s) => s.until > now);
  return ended.map(({ call, used, lastAt }) => ({ call, used, lastAt }));
}

/** The answer for a request admitted with `spare` (a stream on it) or without a slot. */
function admittedWith(
  env: Env,
  key: string,
  spare: Spare | null,
  need: Need,
  background: (work: Promise<unknown>) => void,
): Admitted {
  if (!spare || !need.stream) return { ok: true };
  return { ok: true, slot: spare.slot, close: onSpare(env, key, spare, need, background) };
}

/**
 * A stream given the spare slot `spare`: a stream that ends within the spare's lease gives it
 * back to the isolate (no call); one still open near the lease's end makes the slot its own
 * (takeSpare, from a timer of its request, which the stream keeps alive; the object keeps the
 * spare's row a while past the lease, longer than the call's retries: admission-ledger.ts) and gives it
 * back to the user object when it ends. Answers the stream's `close`.
 */
function onSpare(
  env: Env,
  key: string,
  spare: Spare,
  need: Need,
  background: (work: Promise<unknown>) => void,
): () => Promise<void> {
  let taken: Promise<void> | null = null;
  const timer = setTimeout(
    () => {
      taken = unawaitedWork(() => takeSpare(env, key, spare.slot, need)).catch((error) =>
        log("warn", "a stream's slot could not be kept: it is not counted", {
          key,
          error: String(error),
        }),
      );
      background(taken);
    },
    Math.max(0, spare.until - SPARE_MARGIN_MS - Date.now()),
  );
  return async () => {
    clearTimeout(timer);
    if (taken) return taken.then(() => userObject(env, key).closeStream(spare.slot));
    // Within its lease: the isolate's spare again. Past it, the slot's row ends by itself.
    if (spare.until - Date.now() > SPARE_MARGIN_MS) slicesOf(env, key).spares.push(spare);
  };
}

/**
 * Admits a request of the counters `key`: from the isolate's slices, and what they do not cover
 * by the user object's `lease` call (which leases the next slices with it). `background` runs the
 * calls no response waits for.
 */
export async function admitRequest(
  env: Env,
  key: string,
  need: Need,
  background: (work: Promise<unknown>) => void,
): Promise<Admitted> {
  const slices = slicesOf(env, key);
  const now = Date.now();
  const local = fromSlices(env, key, slices, need, background);
  if ("admitted" in local) return local.admitted;
  const { taken, lacks } = local;
  const call = crypto.randomUUID();
  const stream = lacks.slot ? need.stream : undefined;
  let answer: Lease;
  try {
    answer = await userObject(env, key).lease(call, {
      perMinute: lacks.place ? need.perMinute : 0,
      extra: lacks.place ? extraPlaces(need.perMinute) : 0,
      ttlMs: need.ttlMs,
      ...(stream ? { stream: { ...stream, spare: slices.spares.length === 0 } } : {}),
      ended: endedLeases(slices, now),
    });
  } catch (error) {
    giveBack(slices, taken);
    // An attempt may have run before its answer was lost: what it leased is withdrawn.
    background(userObject(env, key).withdraw(call));
    throw error;
  }
  if (!answer.ok) return refused(env, key, slices, need, taken, background) ?? answer;
  // The object's own time of the admission dates the request's place (its lease ends ttl later).
  const at = answer.until - need.ttlMs;
  if (answer.places > 0)
    slices.leases.push({ call, places: answer.places, used: 1, lastAt: at, until: answer.until });
  if (answer.spare) slices.spares.push({ slot: answer.spare, until: answer.until });
  const { slot } = answer;
  if (!slot) return admittedWith(env, key, taken.spare, need, background);
  return { ok: true, slot, close: () => userObject(env, key).closeStream(slot) };
}

/**
 * A request the object refused: what it took is given back, and it is admitted only if the slices
 * now cover it whole (a concurrent request's lease brought places); else null.
 */
function refused(
  env: Env,
  key: string,
  slices: Slices,
  need: Need,
  taken: Taken,
  background: (work: Promise<unknown>) => void,
): Admitted | null {
  giveBack(slices, taken);
  const again = fromSlices(env, key, slices, need, background);
  if ("admitted" in again) return again.admitted;
  giveBack(slices, again.taken);
  return null;
}

/** A spare slot a stream took, made its own, with a new spare asked for in its place. */
async function takeSpare(env: Env, key: string, slot: string, need: Need): Promise<void> {
  const { stream, ttlMs } = need;
  if (!stream) return;
  const asked = Date.now();
  const { held, spare } = await userObject(env, key).takeSpare(
    slot,
    stream.leaseMs,
    crypto.randomUUID(),
    {
      max: stream.max,
      ttlMs,
    },
  );
  if (!held) log("warn", "a stream's slot came back too late: it is not counted", { key });
  if (spare) slicesOf(env, key).spares.push({ slot: spare, until: asked + ttlMs });
}

/** Forgets this isolate's slices of `key` (its user object was erased). */
export function forgetSlices(env: Env, key: string): void {
  isolates.get(env)?.delete(key);
}
