/**
 * Admission without a call on the request's path: each isolate holds, per counter key, slices the
 * user object leased to it (user-object.ts `lease`): places in the minute's message window and a
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
import { userObject } from "./limits.ts";
import type { Lease, LeaseUse } from "./user-object.ts";

/** A spare slot goes to a stream only with this much of its lease left (its takeSpare lands first). */
const SPARE_MARGIN_MS = 5_000;
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
  spares: { slot: string; until: number }[];
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

/** The request admitted from the isolate's slices, or null when they do not cover it. */
function admitLocally(
  slices: Slices,
  need: Need,
  now: number,
): { spare?: { slot: string; until: number } } | null {
  const lease =
    need.perMinute > 0 ? slices.leases.find((l) => l.used < l.places && l.until > now) : null;
  if (need.perMinute > 0 && !lease) return null;
  const spare = need.stream ? slices.spares.find((s) => s.until - now > SPARE_MARGIN_MS) : null;
  if (need.stream && !spare) return null;
  if (lease) {
    lease.used += 1;
    lease.lastAt = now;
  }
  if (!spare) return {};
  slices.spares = slices.spares.filter((s) => s !== spare);
  return { spare };
}

/** The leases that ended (used up or expired), taken out of `slices` to report their use. */
function endedLeases(slices: Slices, now: number): LeaseUse[] {
  const ended = slices.leases.filter((l) => l.used >= l.places || l.until <= now);
  slices.leases = slices.leases.filter((l) => !ended.includes(l));
  slices.spares = slices.spares.filter((s) => s.until > now);
  return ended.map(({ call, used, lastAt }) => ({ call, used, lastAt }));
}

/** The request admitted from the slices (a stream on a spare slot), or null. */
function withLocal(
  env: Env,
  key: string,
  slices: Slices,
  need: Need,
  background: (work: Promise<unknown>) => void,
): Admitted | null {
  const local = admitLocally(slices, need, Date.now());
  if (!local) return null;
  if (!local.spare || !need.stream) return { ok: true };
  const { slot } = local.spare;
  const close = onSpare(env, key, local.spare, need, background);
  return { ok: true, slot, close };
}

/**
 * A stream given the spare slot `spare`: a stream that ends within the spare's lease gives it
 * back to the isolate (no call); one still open near the lease's end makes the slot its own
 * (takeSpare, from a timer of its request, which the stream keeps alive) and gives it back to the
 * user object when it ends. Answers the stream's `close`.
 */
function onSpare(
  env: Env,
  key: string,
  spare: { slot: string; until: number },
  need: Need,
  background: (work: Promise<unknown>) => void,
): () => Promise<void> {
  let taken: Promise<void> | null = null;
  const timer = setTimeout(
    () => {
      taken = unawaitedWork(() => takeSpare(env, key, spare.slot, need)).catch(() => {});
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
 * Admits a request of the counters `key`: from the isolate's slices, else by the user object's
 * `lease` call. `background` runs the calls no response waits for (a taken spare made the
 * stream's own).
 */
export async function admitRequest(
  env: Env,
  key: string,
  need: Need,
  background: (work: Promise<unknown>) => void,
): Promise<Admitted> {
  const slices = slicesOf(env, key);
  const now = Date.now();
  const local = withLocal(env, key, slices, need, background);
  if (local) return local;
  const call = crypto.randomUUID();
  const { stream } = need;
  const answer: Lease = await userObject(env, key).lease(call, {
    perMinute: need.perMinute,
    extra: extraPlaces(need.perMinute),
    ttlMs: need.ttlMs,
    ...(stream ? { stream: { ...stream, spare: slices.spares.length === 0 } } : {}),
    ended: endedLeases(slices, now),
  });
  // Refused, the request may still have a place: a concurrent request's lease brought some.
  if (!answer.ok) return withLocal(env, key, slices, need, background) ?? answer;
  if (answer.places > 0)
    slices.leases.push({ call, places: answer.places, used: 1, lastAt: now, until: answer.until });
  if (answer.spare) slices.spares.push({ slot: answer.spare, until: answer.until });
  const { slot } = answer;
  if (!slot) return { ok: true };
  return { ok: true, slot, close: () => userObject(env, key).closeStream(slot) };
}

/** A spare slot a stream took, made its own, with a new spare asked for in its place. */
async function takeSpare(env: Env, key: string, slot: string, need: Need): Promise<void> {
  const { stream, ttlMs } = need;
  if (!stream) return;
  const asked = Date.now();
  const { spare } = await userObject(env, key).takeSpare(
    slot,
    stream.leaseMs,
    crypto.randomUUID(),
    {
      max: stream.max,
      ttlMs,
    },
  );
  if (spare) slicesOf(env, key).spares.push({ slot: spare, until: asked + ttlMs });
}

/** Forgets this isolate's slices of `key` (its user object was erased). */
export function forgetSlices(env: Env, key: string): void {
  isolates.get(env)?.delete(key);
}
