import { describe, expect, it, vi } from "vitest";
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
