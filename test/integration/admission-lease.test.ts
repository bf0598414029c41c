/**
 * An isolate's admission from its slices (users/admission-lease.ts): the requests a lease covers
 * make no call to the user object, the limits hold exactly all the same, an ended lease's unused
 * places come back with the next call, and a stream given a spare slot makes it its own.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admitRequest, type Need } from "../../src/users/admission-lease.ts";
import { userObject } from "../../src/users/limits.ts";

/** A new isolate's view (its slices are its env object's) and the user object's rows. */
function isolate() {
  const bindings = { ...env } as Env;
  const key = `user:slices-${crypto.randomUUID()}`;
  const work: Promise<unknown>[] = [];
  const admit = (need: Need) => admitRequest(bindings, key, need, (w) => void work.push(w));
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
  return { admit, rows, idle: () => Promise.all(work), key, bindings };
}

describe("an isolate's slices", () => {
  it("admit the requests a lease covers without a call, exactly the limit in all", async () => {
    const { admit, rows } = isolate();
    // 30 a minute: each call leases the request's place and 3 more.
    for (let i = 0; i < 4; i++) expect(await admit({ perMinute: 30 })).toEqual({ ok: true });
    expect((await rows()).admissions).toEqual([4]); // one call, one row, for four messages
    expect(await admit({ perMinute: 30 })).toEqual({ ok: true });
    expect((await rows()).admissions).toEqual([4, 4]);
  });

  it("hold the limit exactly under concurrent requests", async () => {
    const { admit } = isolate();
    const answers = await Promise.all(Array.from({ length: 8 }, () => admit({ perMinute: 5 })));
    expect(answers.filter((a) => a.ok)).toHaveLength(5);
    expect(await admit({ perMinute: 5 })).toMatchObject({ ok: false });
  });

  it("give back an ended lease's unused places with the next call", async () => {
    const { admit, rows, key, bindings } = isolate();
    expect(await admit({ perMinute: 30 })).toEqual({ ok: true }); // a lease of 4, one used
    // The lease ends unused (as if its time were up): the next call says so.
    const later = Date.now() + 25_000;
    const realNow = Date.now;
    Date.now = () => later;
    try {
      expect(await admitRequest(bindings, key, { perMinute: 30 }, () => {})).toEqual({ ok: true });
    } finally {
      Date.now = realNow;
    }
    expect((await rows()).admissions).toEqual([1, 4]);
  });

  it("give a stream a spare slot, which the stream then holds as its own", async () => {
    const { admit, rows, idle, key } = isolate();
    const stream = { max: 2, leaseMs: 3_600_000 };
    const first = await admit({ perMinute: 0, stream });
    expect(first).toMatchObject({ ok: true, slot: expect.any(String) });
    expect((await rows()).streams).toHaveLength(2); // its slot, and a spare
    const second = await admit({ perMinute: 0, stream });
    expect(second).toMatchObject({ ok: true, slot: expect.stringMatching(/:spare$/) });
    await idle();
    const held = (await rows()).streams;
    expect(held).toHaveLength(2); // no new spare: both slots are streams'
    for (const slot of held) expect(slot.expires_at).toBeGreaterThan(Date.now() + 3_000_000);
    expect(await admit({ perMinute: 0, stream })).toEqual({ ok: false, streams: 2 });
    // A stream's end frees its slot; the next stream's call finds it.
    await userObject(env, key).closeStream((second as { slot: string }).slot);
    expect(await admit({ perMinute: 0, stream })).toMatchObject({ ok: true });
  });
});
