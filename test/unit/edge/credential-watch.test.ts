/**
 * An open stream's credentials are re-checked every STREAM_AUTH_RECHECK_MS, at the clock's
 * multiples of it (timers and clock faked here, so the cadence is tested, not the machine's
 * speed): nothing before the first multiple, one check per period, `onRevoked` once when a check
 * finds the credential gone and no checks after it; a check that fails to run counts as still
 * authorized; streams opened at different moments check at the same ones (so their tokens are
 * looked up together).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { STREAM_AUTH_RECHECK_MS, watchCredentials } from "../../../src/edge/sse.ts";

/** A moment on a multiple of the period. */
const ALIGNED = 1_800_000_000_000;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(ALIGNED);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("watchCredentials", () => {
  it("checks once per interval and ends the stream once, at the first failed check", async () => {
    let valid = true;
    let checks = 0;
    let revoked = 0;
    const stop = watchCredentials(
      async () => {
        checks += 1;
        return valid;
      },
      () => {
        revoked += 1;
      },
    );
    await vi.advanceTimersByTimeAsync(STREAM_AUTH_RECHECK_MS - 1);
    expect(checks).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect([checks, revoked]).toEqual([1, 0]);
    valid = false;
    await vi.advanceTimersByTimeAsync(STREAM_AUTH_RECHECK_MS);
    expect([checks, revoked]).toEqual([2, 1]);
    await vi.advanceTimersByTimeAsync(3 * STREAM_AUTH_RECHECK_MS);
    expect([checks, revoked]).toEqual([2, 1]);
    stop();
  });

  it("keeps a stream whose check cannot run, and stops checking when told", async () => {
    let checks = 0;
    let revoked = 0;
    const stop = watchCredentials(
      async () => {
        checks += 1;
        throw new Error("D1 unavailable");
      },
      () => {
        revoked += 1;
      },
    );
    await vi.advanceTimersByTimeAsync(2 * STREAM_AUTH_RECHECK_MS);
    expect([checks, revoked]).toEqual([2, 0]);
    stop();
    await vi.advanceTimersByTimeAsync(2 * STREAM_AUTH_RECHECK_MS);
    expect(checks).toBe(2);
  });

  it("checks every stream of the isolate at the same moments, whenever it opened", async () => {
    const moments: Array<[string, number]> = [];
    const watch = (name: string) =>
      watchCredentials(
        async () => {
          moments.push([name, Date.now()]);
          return true;
        },
        () => {},
      );
    const early = watch("early");
    await vi.advanceTimersByTimeAsync(1_234);
    const late = watch("late");
    await vi.advanceTimersByTimeAsync(2 * STREAM_AUTH_RECHECK_MS);
    const at = (name: string) => moments.filter(([n]) => n === name).map(([, t]) => t);
    expect(at("early")).toEqual([
      ALIGNED + STREAM_AUTH_RECHECK_MS,
      ALIGNED + 2 * STREAM_AUTH_RECHECK_MS,
    ]);
    expect(at("late")).toEqual(at("early"));
    early();
    late();
  });
});
