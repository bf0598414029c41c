/**
 * Naming delegated callers in access rules: `delegated:<issuer> agent=<a> user=<u>` matches user
 * `u` via agent `a` from issuer `issuer`; `agent=` and `user=` may be left out or be `*` (any).
 * IDENTITY.md's `access.users` and the keys of `AGENT_CALL_RULES` take such patterns. Pure.
 */
import type { DelegatedCaller } from "../protocol/delegated-caller.ts";

/** The part of a delegated caller a pattern names (a pattern's `*` stands for any). */
type Named = Pick<DelegatedCaller, "issuer" | "agent" | "user">;

/** Every delegation pattern starts with this. */
export const DELEGATION_PATTERN_PREFIX = "delegated:";

/** The syntax of a pattern (for validating configuration). */
export const DELEGATION_PATTERN = /^delegated:\S+(?: agent=\S+)?(?: user=\S+)?$/;

function parse(pattern: string): Named | null {
  if (!DELEGATION_PATTERN.test(pattern)) return null;
  const [head = "", ...rest] = pattern.slice(DELEGATION_PATTERN_PREFIX.length).split(" ");
  const field = (name: string) =>
    rest.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1) ?? "*";
  return { issuer: head.replace(/\/+$/, ""), agent: field("agent"), user: field("user") };
}

const fits = (want: string, have: string) => want === "*" || want === have;

/** Whether `pattern` names the delegated caller `caller`. */
export function matchesDelegation(pattern: string, caller: Named): boolean {
  const parsed = parse(pattern);
  return (
    parsed !== null &&
    fits(parsed.issuer, caller.issuer.replace(/\/+$/, "")) &&
    fits(parsed.agent, caller.agent) &&
    fits(parsed.user, caller.user)
  );
}

/**
 * Whether `AGENT_CALL_RULES` let a delegated caller call `callee`: the rules whose key matches
 * it allow their callees (`*` = any); a caller no key matches may call any agent.
 */
export function delegatedMayCall(
  rules: Record<string, string[]>,
  caller: Named,
  callee: string,
): boolean {
  const matching = Object.entries(rules).filter(
    ([key]) => key.startsWith(DELEGATION_PATTERN_PREFIX) && matchesDelegation(key, caller),
  );
  return (
    matching.length === 0 ||
    matching.some(([, callees]) => callees.includes("*") || callees.includes(callee))
  );
}
