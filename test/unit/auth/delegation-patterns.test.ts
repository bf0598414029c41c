/** Delegation patterns in access rules and AGENT_CALL_RULES. */
import { describe, expect, it } from "vitest";
import { delegatedMayCall, matchesDelegation } from "../../../src/config/delegation-patterns.ts";

const alice = { issuer: "https://a.example", agent: "assistant", user: "alice" };

describe("delegation patterns", () => {
  it("matches issuer, agent and user, each part optional or *", () => {
    expect(matchesDelegation("delegated:https://a.example", alice)).toBe(true);
    expect(matchesDelegation("delegated:https://a.example/ agent=assistant", alice)).toBe(true);
    expect(matchesDelegation("delegated:https://a.example agent=* user=alice", alice)).toBe(true);
    expect(matchesDelegation("delegated:* user=alice", alice)).toBe(true);
    expect(matchesDelegation("delegated:https://b.example", alice)).toBe(false);
    expect(matchesDelegation("delegated:https://a.example user=bob", alice)).toBe(false);
    expect(matchesDelegation("delegated:https://a.example agent=writer", alice)).toBe(false);
    expect(matchesDelegation("alice", alice)).toBe(false);
  });

  it("lets AGENT_CALL_RULES limit what a delegated caller may call", () => {
    const rules = { "delegated:https://a.example agent=assistant": ["writer"], assistant: ["*"] };
    expect(delegatedMayCall(rules, alice, "writer")).toBe(true);
    expect(delegatedMayCall(rules, alice, "researcher")).toBe(false);
    expect(delegatedMayCall(rules, { ...alice, issuer: "https://c.example" }, "researcher")).toBe(
      true,
    );
  });
});
