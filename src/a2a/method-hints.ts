/**
 * What a -32601 answer adds for a JSON-RPC method the called version does not have: the method to
 * call instead of an older name, the other version's method or the header that selects it, or a
 * near miss of a name (methods.ts holds the names). Pure: no I/O.
 */
import { nearestName } from "../platform/near-miss.ts";
import { methodFor, methodNames, rpcMethod } from "./methods.ts";
import type { A2AVersion } from "./version.ts";

/**
 * Method names that no A2A version defines but older drafts and design documents use, with what
 * each version calls the method: `message/sendSubscribe` (streaming, in some designs), and A2A
 * 0.1's `tasks/send` and `tasks/sendSubscribe` (renamed in 0.2). They are not aliases: an alias
 * would be a method no card advertises, which every method-keyed rule (rate limits, logs) would
 * have to know; a call answers -32601 naming the method to use instead.
 */
const RENAMED_METHODS: Readonly<Record<string, Readonly<Record<A2AVersion, string>>>> = {
  "message/sendSubscribe": { "1.0": "SendStreamingMessage", "0.3": "message/stream" },
  "tasks/sendSubscribe": { "1.0": "SendStreamingMessage", "0.3": "message/stream" },
  "tasks/send": { "1.0": "SendMessage", "0.3": "message/send" },
};

/** The other protocol generation. */
const otherVersion = (version: A2AVersion): A2AVersion => (version === "1.0" ? "0.3" : "1.0");

/**
 * The end of a -32601 message for an older method name (see {@link RENAMED_METHODS}): the method
 * of `version` to call instead, and the other version's; "" for any other name.
 */
function renamedHint(version: A2AVersion, method: string): string {
  const names = Object.hasOwn(RENAMED_METHODS, method) ? RENAMED_METHODS[method] : undefined;
  if (!names) return "";
  const other = otherVersion(version);
  return `; ${method} is an older name: call ${names[version]} (A2A ${version}; in A2A ${other}: ${names[other]})`;
}

/**
 * The end of a -32601 message for a method of the other version: its name in `version`, or the
 * header that selects the version it belongs to; "" for a name the other version does not have.
 * `headerSent`: the client named the version (else it was read as 0.3, the spec's default).
 */
function otherVersionHint(version: A2AVersion, method: string, headerSent: boolean): string {
  const other = otherVersion(version);
  const spec = rpcMethod(other, method);
  if (!spec) return "";
  if (version === "0.3" && !headerSent)
    return "; the request has no A2A-Version header, so it was read as A2A 0.3: send A2A-Version: 1.0";
  const here = methodFor(version, spec.op);
  const call = here ? `call ${here}, or ` : "";
  return `; ${method} is an A2A ${other} method: over A2A ${version} ${call}send A2A-Version: ${other} to call it`;
}

/**
 * A near miss of a method name (a typo, another case): the closest method of `version` within two
 * edits, or the method of `version` for the closest of the other version's; "" for none.
 */
function nearMissHint(version: A2AVersion, method: string): string {
  const own = nearestName(method, methodNames(version), 2);
  if (own) return `; did you mean ${own}?`;
  const other = otherVersion(version);
  const near = nearestName(method, methodNames(other), 2);
  const spec = near ? rpcMethod(other, near) : undefined;
  const here = spec ? methodFor(version, spec.op) : undefined;
  return near && here ? `; did you mean ${here}? (${near} in A2A ${other})` : "";
}

/**
 * What a -32601 message adds for a method `version` does not have, first that applies: an older
 * name's successor, the other version's method (or the missing header), a near miss; else "".
 */
export function methodHint(version: A2AVersion, method: string, headerSent: boolean): string {
  return (
    renamedHint(version, method) ||
    otherVersionHint(version, method, headerSent) ||
    nearMissHint(version, method)
  );
}
