/**
 * JSON the harness wrote itself, read back as the type it was written as: a column of its own
 * storage (SQLite, D1) or a line of its own stream between its objects. Like the storage APIs'
 * typed rows (`exec<T>`, `first<T>`), it trusts the writer; nothing that comes from outside is
 * read with it (input is parsed with zod at the edge).
 */

/** `text` parsed as the `T` that was serialized into it. */
export function storedJson<T>(text: string): T {
  // The trust this module stands for: the harness serialized a T into `text` (see the header).
  return JSON.parse(text) as T;
}
