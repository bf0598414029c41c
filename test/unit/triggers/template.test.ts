/**
 * A trigger's prompt (src/triggers/template.ts): `{{$json}}` shows the payload as indented JSON
 * cut at 20,000 characters, written no further than that (src/platform/bounded-json.ts gives the
 * same characters JSON.stringify would), and `$` names read only `extra`'s own entries.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { boundedPrettyJson } from "../../../src/platform/bounded-json.ts";
import { renderPrompt } from "../../../src/triggers/template.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A webhook payload of about `n` characters: many small records and one long string. */
const bigPayload = (n: number) => ({
  action: "opened",
  items: Array.from({ length: n / 100 }, (_, i) => ({ id: i, title: `item ${i}`, tags: ["a"] })),
  body: "x".repeat(n),
});

describe("{{$json}}", () => {
  it("cuts a large payload at 20,000 characters without writing the rest", () => {
    const payload = bigPayload(1_000_000);
    const full = JSON.stringify(payload, null, 2);
    const stringify = vi.spyOn(JSON, "stringify");
    const text = renderPrompt("Event:\n{{$json}}", payload);
    const longest = Math.max(0, ...stringify.mock.results.map((r) => String(r.value).length));
    expect(longest).toBeLessThanOrEqual(20_003);
    expect(text).toBe(`Event:\n${full.slice(0, 20_000)}\n[truncated]`);
  });

  it("shows a small payload whole, exactly as JSON.stringify indents it", () => {
    const payload = { a: [1, { b: null, c: [] }, {}], 'k"ey': "v\u2028", n: -1.5e-7, t: true };
    expect(renderPrompt("{{$json}}", payload)).toBe(JSON.stringify(payload, null, 2));
  });

  it("reads $ names from extra's own entries only", () => {
    expect(renderPrompt("[{{$event}}|{{$constructor}}|{{$toString}}]", {}, { event: "push" })).toBe(
      "[push||]",
    );
  });
});

describe("boundedPrettyJson", () => {
  it("gives the first characters of JSON.stringify(value, null, 2) at every cut", () => {
    const value = {
      emoji: "😀".repeat(40),
      escapes: '"\\\n\t\u0001'.repeat(20),
      nested: { list: [1, "two", [3, [4, {}]], null, false], empty: [] },
      [`long ${"k".repeat(50)}`]: 0,
    };
    const full = JSON.stringify(value, null, 2);
    for (let max = 0; max <= full.length + 2; max++) {
      const { text, cut } = boundedPrettyJson(value, max);
      expect(text, `max ${max}`).toBe(full.slice(0, max));
      expect(cut, `max ${max}`).toBe(max < full.length);
    }
  });
});
