/**
 * Reading a field of a value whose shape nothing vouches for (metadata, a stored or received
 * JSON value): an own property of an object (never one it inherits), narrowed by its type rather
 * than asserted, so a missing or mistyped field reads as undefined.
 */

/** The own property `key` of `value` when it is an object, else undefined. */
export function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && Object.hasOwn(value, key)
    ? Reflect.get(value, key)
    : undefined;
}

/** The own property `key` of `value` when it is a string, else undefined. */
export function textField(value: unknown, key: string): string | undefined {
  const field = fieldOf(value, key);
  return typeof field === "string" ? field : undefined;
}
