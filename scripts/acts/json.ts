/**
 * JSON as the ACTS runner handles it: an object is a `Json` map, told apart from arrays and null
 * by `isMap`. Pure.
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

/** Whether `value` is a JSON object (not an array, not null). */
export const isMap = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);
