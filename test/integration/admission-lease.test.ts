/**
 * An isolate's admission from its slices (users/admission-lease.ts): the requests a lease covers
 * make no call to the user object, the limits hold exactly all the same, an ended lease's unused
 * places come back with the next call, and a spare stream slot serves stream after stream within
 * its lease, made a stream's own only by a stream still open near the lease's end.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { platformEnv } from "../../src/platform/bindings.ts";
import { setFaults } from "../../src/platform/faults/fault-injector.ts";
import { type Admitted, admitRequest } from "../../src/users/admission-lease.ts";
import { userObject } from "../../src/users/limits.ts";

const TTL = 20_000;
const STREAM = { max: 4, leaseMs: 3_600_000 };

const realNow = Date.now;
afterEach(() => {
  Date.now = realNow;
  setFaults(null);
});

/** A new isolate's view (its slices are its env object's) and the user object's rows. */
function isolate(bindings = { ...env } as Env, stream = STREAM) {
  const key = `user:slices-${crypto.randomUUID()}`;
  const work: Promise<unknown>[] = [];
  const admit = (perMinute: number, streamed = false) =>
    admitRequest(
      bindings,
      key,
      { perMinute, ttlMs: TTL, ...(streamed ? { stream } : {}) },
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
    const { slot } = held as { slot: string };
    const own = slots.find((s) => s.lease === slot);
    expect(own?.expires_at).toBeGreaterThan(realNow() + 3_000_000);
    // With two slots free under 4, a new spare came back with it.
    expect(slots).toHaveLength(3);
    // Its end gives the slot back to the user object.
    await closeOf(held)();
    expect((await rows()).streams.map((s) => s.lease)).not.toContain(slot);
    await userObject(env, key).closeStream((first as { slot: string }).slot);
  });

  it("ask only for a stream's slot when a place is held: no place leased twice", async () => {
    // Under 2 open streams a spare is never leased (it would take the last free slot).
    const { admit, rows } = isolate(undefined, { max: 2, leaseMs: 3_600_000 });
    const first = await admit(30, true);
    expect(first).toMatchObject({ ok: true, slot: expect.any(String) });
    expect(await rows()).toMatchObject({ admissions: [4] });
    expect((await rows()).streams).toHaveLength(1);
    const second = await admit(30, true); // its place from the lease, its slot by a call
    expect(second).toMatchObject({ ok: true, slot: expect.any(String) });
    expect(await rows()).toMatchObject({ admissions: [4] });
    expect((await rows()).streams).toHaveLength(2);
    // Refused for its slot, the third gives its place back: the fourth message takes it.
    expect(await admit(30, true)).toEqual({ ok: false, streams: 2 });
    expect(await admit(30)).toEqual({ ok: true });
    expect(await admit(30)).toEqual({ ok: true });
    expect(await rows()).toMatchObject({ admissions: [4] });
  });

  it("withdraw a lease whose call failed after it ran: its places, slot and spare", async () => {
    const faulty = platformEnv(env);
    const { admit, rows, idle } = isolate(faulty);
    setFaults("users.lease:lost:1:5"); // every attempt runs, every answer is lost
    await expect(admit(30, true)).rejects.toThrow(/users\.lease/);
    await idle();
    expect(await rows()).toEqual({ admissions: [], streams: [] });
  });
});
