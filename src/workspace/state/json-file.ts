/**
 * A JSON state file's text checked against its schema: the value, or why it is not valid (the
 * first issue's path and message, or "not JSON"); null text is a file that does not exist.
 * Pure: no I/O.
 */
import type { z } from "zod";

/** `text` parsed and checked; `invalid` says why it is not a valid file. */
export function parseJsonFile<T>(
  schema: z.ZodType<T>,
  text: string | null,
): { value: T | null; invalid?: string } {
  if (text === null) return { value: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { value: null, invalid: "not JSON" };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0];
  return { value: null, invalid: `${issue?.path.join(".") || "file"}: ${issue?.message}` };
}
