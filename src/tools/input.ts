/**
 * zod validation of a tool's input with a refusal the model can act on: the tool, the fields at
 * fault and, when given, the expected shape. Every tool parses its input through this.
 */
import type { z } from "zod";
import type { ToolResult } from "../loop/contracts.ts";

/** The parsed input, or the error result to return. */
export type Parsed<T> = { ok: true; data: T } | { ok: false; result: ToolResult };

/** Validates `input` against `schema`; on failure names up to three fields and the shape. */
export function parseInput<T>(
  tool: string,
  schema: z.ZodType<T>,
  input: Record<string, unknown>,
  shape?: string,
): Parsed<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "input"}: ${i.message}`)
    .join("; ");
  const expected = shape ? ` Expected ${shape}.` : "";
  return {
    ok: false,
    result: { content: `Invalid input for ${tool}: ${issues}.${expected}`, isError: true },
  };
}
