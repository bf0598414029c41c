import { afterEach, describe, expect, it, vi } from "vitest";
import { AnswerStream } from "../../../../src/loop/turn/answer-stream.ts";
import { type TextAction, TurnText } from "../../../../src/loop/turn/turn-text.ts";

const run = (shown: string, deltas: string[]) => {
  const t = new TurnText(shown);
  const actions: TextAction[] = deltas.flatMap((d) => t.push(d));
  return { actions: [...actions, ...t.finish()], text: t.received };
};

describe("TurnText (retried turns never repeat streamed text)", () => {
  it("passes a first attempt through as appends", () => {
    expect(run("", ["Hel", "lo"]).actions).toEqual([
      { kind: "append", text: "Hel" },
      { kind: "append", text: "lo" },
    ]);
  });

  it("sends nothing while a retry repeats what was shown, then only the extension", () => {
    const { actions, text } = run("Hello wor", ["Hel", "lo ", "wor", "ld!"]);
    expect(actions).toEqual([{ kind: "append", text: "ld!" }]);
    expect(text).toBe("Hello world!");
  });

  it("replaces the turn text when the retry diverges", () => {
    const { actions } = run("Hello wor", ["Hel", "p is ", "here"]);
    expect(actions).toEqual([
      { kind: "replace", text: "Help is " },
      { kind: "append", text: "here" },
    ]);
  });

  it("replaces when a retry ends shorter than what was shown", () => {
    expect(run("Hello world", ["Hello"]).actions).toEqual([{ kind: "replace", text: "Hello" }]);
  });

  it("handles a retry that diverges inside the shown prefix and then grows past it", () => {
    const { actions, text } = run("abcdef", ["abX", "defghi"]);
    expect(actions[0]).toEqual({ kind: "replace", text: "abX" });
    expect(text).toBe("abXdefghi");
    expect(actions.at(-1)).toEqual({ kind: "append", text: "defghi" });
  });
});

/**
 * Counts the characters string comparisons and copies touch while it is on: what `startsWith`,
 * `endsWith`, `includes` and `indexOf` may scan, and what `slice` and `substring` copy.
 */
function scanCounter(): () => number {
  let chars = 0;
  const proto = String.prototype;
  const scans = [proto.startsWith, proto.endsWith, proto.includes, proto.indexOf];
  for (const [name, original] of [
    ["startsWith", scans[0]],
    ["endsWith", scans[1]],
    ["includes", scans[2]],
    ["indexOf", scans[3]],
  ] as const)
    vi.spyOn(proto, name).mockImplementation(function (this: string, search: string, at?: number) {
      chars += Math.min(String(search).length, this.length);
      return (original as (s: string, p?: number) => never).call(this, search, at);
    });
  for (const [name, original] of [
    ["slice", proto.slice],
    ["substring", proto.substring],
  ] as const)
    vi.spyOn(proto, name).mockImplementation(function (this: string, a?: number, b?: number) {
      const out = (original as (a?: number, b?: number) => string).call(this, a, b);
      chars += out.length;
      return out;
    });
  return () => chars;
}

describe("TurnText's work (linear in the turn's length)", () => {
  afterEach(() => vi.restoreAllMocks());
  const delta = "w".repeat(100);

  it("scans each delta of a first attempt once, however long the turn has grown", () => {
    const t = new TurnText("");
    const scanned = scanCounter();
    for (let i = 0; i < 2_000; i++) t.push(delta);
    t.finish();
    // 200,000 characters received: the work is a small multiple of that, not 2,000 times it.
    expect(scanned()).toBeLessThanOrEqual(3 * 200_000);
  });

  it("scans each delta of a retry once, through the text shown and past it", () => {
    const shown = delta.repeat(1_000);
    const t = new TurnText(shown);
    const scanned = scanCounter();
    for (let i = 0; i < 2_000; i++) t.push(delta);
    const actions = t.finish();
    vi.restoreAllMocks();
    expect(actions).toEqual([]);
    expect(t.received).toBe(delta.repeat(2_000));
    expect(scanned()).toBeLessThanOrEqual(3 * 200_000);
  });
});

describe("AnswerStream (chunk batching)", () => {
  it("batches appends until the flush interval and preserves order around replaces", () => {
    vi.useFakeTimers();
    try {
      const sent: Array<[TextAction, string]> = [];
      const stream = new AnswerStream((a, shown) => sent.push([a, shown]), "", {
        flushMs: 50,
        maxChars: 100,
      });
      stream.push([
        { kind: "append", text: "a" },
        { kind: "append", text: "b" },
      ]);
      expect(sent).toEqual([]);
      vi.advanceTimersByTime(50);
      expect(sent).toEqual([[{ kind: "append", text: "ab" }, "ab"]]);
      stream.push([
        { kind: "append", text: "c" },
        { kind: "replace", text: "XYZ" },
      ]);
      expect(sent.slice(1)).toEqual([
        [{ kind: "append", text: "c" }, "abc"],
        [{ kind: "replace", text: "XYZ" }, "XYZ"],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("flushes at once when the batch reaches maxChars, and discard drops pending text", () => {
    const sent: string[] = [];
    const stream = new AnswerStream((a) => sent.push(a.text), "", { flushMs: 10_000, maxChars: 4 });
    stream.push([{ kind: "append", text: "abcd" }]);
    expect(sent).toEqual(["abcd"]);
    stream.push([{ kind: "append", text: "e" }]);
    stream.discard();
    stream.flush();
    expect(sent).toEqual(["abcd"]);
  });
});
