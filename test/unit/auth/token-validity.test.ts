/**
 * Open streams' token re-checks are gathered: the checks an isolate's streams make at one moment
 * are answered by one D1 statement (at most MAX_PER_STATEMENT tokens each) for every token asked
 * about lately, the others reading the answer from memory; a revoked token's check says so and
 * the others' do not; a check whose gathering query never answers asks alone after FALLBACK_MS;
 * a query that fails counts as still valid. Only data is shared between checks (each waits on its
 * own timer). The database is a fake that records statements; timers and clock are faked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  FALLBACK_MS,
  GATHER_MS,
  MAX_PER_STATEMENT,
  tokenStillStands,
} from "../../../src/auth/token-validity.ts";

/** A D1 stand-in: `valid` hashes stand; each statement's bound hashes are recorded. */
function fakeDb(valid: Set<string>, behaviour: "answer" | "hang-first" | "fail" = "answer") {
  const statements: string[][] = [];
  const db = {
    prepare: () => ({
      bind: (...hashes: string[]) => ({
        all: () => {
          statements.push(hashes);
          if (behaviour === "fail") return Promise.reject(new Error("D1 is down"));
          if (behaviour === "hang-first" && statements.length === 1) return new Promise(() => {});
          return Promise.resolve({
            results: hashes.filter((h) => valid.has(h)).map((hash) => ({ hash })),
          });
        },
      }),
    }),
  };
  return { db: db as unknown as D1Database, statements };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("tokenStillStands", () => {
  it("answers 250 streams' checks with three statements, revoked tokens false", async () => {
    const hashes = Array.from({ length: 250 }, (_, i) => `h${i}`);
    const revoked = new Set(["h7", "h180"]);
    const { db, statements } = fakeDb(new Set(hashes.filter((h) => !revoked.has(h))));
    const checks = hashes.map((h) => tokenStillStands(db, h));
    await vi.advanceTimersByTimeAsync(GATHER_MS + 100);
    const answers = await Promise.all(checks);
    expect(statements.map((s) => s.length)).toEqual([MAX_PER_STATEMENT, MAX_PER_STATEMENT, 50]);
    expect(hashes.filter((_, i) => !answers[i])).toEqual(["h7", "h180"]);
  });

  it("looks a token up once for all the streams that use it", async () => {
    const { db, statements } = fakeDb(new Set(["shared"]));
    const checks = [1, 2, 3].map(() => tokenStillStands(db, "shared"));
    await vi.advanceTimersByTimeAsync(GATHER_MS + 100);
    expect(await Promise.all(checks)).toEqual([true, true, true]);
    expect(statements).toEqual([["shared"]]);
  });

  it("asks alone when the gathering query never answers", async () => {
    const { db, statements } = fakeDb(new Set(["a", "b"]), "hang-first");
    void tokenStillStands(db, "a"); // its query hangs
    const check = tokenStillStands(db, "b");
    await vi.advanceTimersByTimeAsync(FALLBACK_MS + 2 * GATHER_MS + 100);
    expect(await check).toBe(true);
    expect(statements).toHaveLength(2);
  });

  it("counts a check whose query fails as still valid", async () => {
    const { db } = fakeDb(new Set(), "fail");
    const check = tokenStillStands(db, "a");
    await vi.advanceTimersByTimeAsync(GATHER_MS + 100);
    expect(await check).toBe(true);
  });
});
