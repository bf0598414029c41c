/**
 * An isolate's admission from its slices (users/admission-lease.ts): the requests a lease covers
 * make no call to the user object, the limits hold exactly all the same, an ended lease's unused
 * places come back with the next call, and a spare stream slot serves stream after stream within
 * its lease, made a stream's own only by a stream still open near the lease's end.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { type Admitted, admitRequest } from "../../src/users/admission-lease.ts";
import { userObject } from "../../src/users/limits.ts";

const TTL = 20_000;
const STREAM = { max: 2, leaseMs: 3_600_000 };

const realNow = Date.now;
afterEach(() => {
  Date.now = realNow;
});

/** A new isolate's view (its slices are its env object's) and the user object's rows. */
function isolate() {
  const bindings = { ...env } as Env;
  const key = `user:slices-${crypto.randomUUID()}`;
  const work: Promise<unknown>[] = [];
  const admit = (perMinute: number, stream = false) =>
    admitRequest(
      bindings,
      key,
      { perMinute, ttlMs: TTL, ...(stream ? { stream: STREAM } : {}) },
      (w) => void work.push(w),
    );
  const rows = () =>
    runInDurableObject(userObject(env, key), (_object, state) => ({
      admissions: state.storage.sql
        .exec<{ n: number }>("SELECT n FROM admissions ORDER BY at")
        .toArray()
        .map((row) => row.n),
      streams: state.storage.sql
        .exec<{ lease: string; expires_at: number }>("SELECT lease, expires_at FROM streams")
        .toArray(),
    }));
  return { admit, rows, idle: () => Promise.all(work), key };
}

/** The close of an admitted stream. */
const closeOf = (admitted: Admitted) => {
  if (!admitted.ok || !admitted.close) throw new Error("no stream slot");
  return admitted.close;
};

describe("an isolate's slices", () => {
  it("admit the requests a lease covers without a call, exactly the limit in all", async () => {
    const { admit, rows } = isolate();
    // 30 a minute: each call leases the request's place and 3 more.
    for (let i = 0; i < 4; i++) expect(await admit(30)).toEqual({ ok: true });
    expect((await rows()).admissions).toEqual([4]); // one call, one row, for four messages
    expect(await admit(30)).toEqual({ ok: true });
    expect((await rows()).admissions).toEqual([4, 4]);
  });

  it("hold the limit exactly under concurrent requests", async () => {
    const { admit } = isolate();
    const answers = await Promise.all(Array.from({ length: 8 }, () => admit(5)));
    expect(answers.filter((a) => a.ok)).toHaveLength(5);
    expect(await admit(5)).toMatchObject({ ok: false });
  });

  it("give back an ended lease's unused places with the next call", async () => {
    const { admit, rows } = isolate();
    expect(await admit(30)).toEqual({ ok: true }); // a lease of 4, one used
    // The lease ends unused (its time is up): the next call says so.
    const later = realNow() + TTL + 5_000;
    Date.now = () => later;
    expect(await admit(30)).toEqual({ ok: true });
    expect((await rows()).admissions).toEqual([1, 4]);
  });

  it("serve stream after stream with one spare slot, no call, within its lease", async () => {
    const { admit, rows } = isolate();
    const first = await admit(0, true); // the call: the stream's slot, and a spare
    expect(first).toMatchObject({ ok: true, slot: expect.any(String) });
    expect((await rows()).streams).toHaveLength(2);
    for (let i = 0; i < 3; i++) {
      const next = await admit(0, true);
      expect(next).toMatchObject({ ok: true, slot: expect.stringMatching(/:spare$/) });
      await closeOf(next)(); // ended within the lease: the isolate's spare again
    }
    expect((await rows()).streams).toHaveLength(2); // no call made: the same two rows
    await closeOf(first)();
    expect((await rows()).streams).toHaveLength(1); // the spare's, until its lease ends
  });

  it("make the spare a stream's own when the stream is open near the lease's end", async () => {
    const { admit, rows, idle, key } = isolate();
    const first = await admit(0, true);
    // The next stream comes 6 s before the spare's end: its timer makes the slot its own 1 s later.
    const near = realNow() + TTL - 6_000;
    Date.now = () => near;
    const held = await admit(0, true);
    expect(held).toMatchObject({ ok: true, slot: expect.stringMatching(/:spare$/) });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await idle();
    Date.now = realNow;
    const slots = (await rows()).streams;
    expect(slots).toHaveLength(2); // both slots the streams', no spare left under the limit of 2
    for (const slot of slots) expect(slot.expires_at).toBeGreaterThan(realNow() + 3_000_000);
    expect(await admit(0, true)).toEqual({ ok: false, streams: 2 });
    // Its end gives the slot back to the user object; the next stream's call finds it.
    await closeOf(held)();
    expect((await rows()).streams).toHaveLength(1);
    expect(await admit(0, true)).toMatchObject({ ok: true });
    await userObject(env, key).closeStream((first as { slot: string }).slot);
  });
});
