/**
 * refusalOf (src/loop/turn/refusal.ts): the explanation and category of a refused turn, read from
 * `stop_details` as untrusted input, with a default when the API gave no explanation.
 */
import type { Message } from "@anthropic-ai/sdk/resources/messages/messages";
import { describe, expect, it } from "vitest";
import { DEFAULT_REFUSAL_TEXT, refusalOf } from "../../../../src/loop/turn/refusal.ts";

const turn = (stop_reason: string, stop_details?: unknown) =>
  ({ stop_reason, stop_details }) as unknown as Pick<Message, "stop_reason">;

describe("refusalOf", () => {
  it("is null for a turn that was not refused", () => {
    expect(refusalOf(turn("end_turn"))).toBeNull();
    expect(refusalOf(turn("max_tokens", { type: "refusal", explanation: "x" }))).toBeNull();
  });

  it("takes the explanation and category of stop_details", () => {
    const details = { type: "refusal", category: "cyber", explanation: "  Declined: cyber harm. " };
    expect(refusalOf(turn("refusal", details))).toEqual({
      explanation: "Declined: cyber harm.",
      category: "cyber",
    });
  });

  it("says so plainly when there is no explanation, and drops what is not a sane string", () => {
    for (const details of [
      undefined,
      null,
      "refused",
      { type: "refusal", category: null, explanation: null },
      { explanation: "   ", category: 7 },
      { category: "Not A Category!" },
      JSON.parse('{"__proto__": {"explanation": "inherited"}}'),
    ])
      expect(refusalOf(turn("refusal", details))).toEqual({
        explanation: DEFAULT_REFUSAL_TEXT,
        category: null,
      });
    const long = refusalOf(turn("refusal", { explanation: "y".repeat(5_000) }));
    expect(long?.explanation).toHaveLength(2_001);
  });
});
