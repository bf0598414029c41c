/**
 * What both v0.3 dialects (json-rpc.ts, http-json.ts) read the same way: whether a field is
 * given (proto3 leaves a field at its default out, so "" and null count as absent), and what a
 * send configuration's `blocking` means in v1.0 terms. Pure: no I/O.
 */

/** True when a field is given: not undefined, null or "" (a proto3 default). */
export const given = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== "";

/**
 * `returnImmediately` for a v0.3 configuration's `blocking`: as the SDK's translation, a
 * configuration without `blocking` returns at once, and only `blocking: true` waits.
 */
export const returnImmediately = (blocking: unknown): boolean => blocking !== true;
