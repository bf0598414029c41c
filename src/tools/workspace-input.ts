/**
 * Shared by the workspace and checkpoint tools: zod validation of a tool's input with a refusal
 * the model can act on, and the `checkpoint` harness event for an automatic checkpoint.
 */
import type { z } from "zod";
import type { ToolContext, ToolResult } from "./types.ts";

/** The parsed input, or the error result to return. */
export type Parsed<T> = { ok: true; data: T } | { ok: false; result: ToolResult };

/** Validates `input` against `schema`; on failure names the field and the expected shape. */
export function parseInput<T>(
  tool: string,
  schema: z.ZodType<T>,
  input: Record<string, unknown>,
  shape: string,
): Parsed<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "input"}: ${i.message}`)
    .join("; ");
  return {
    ok: false,
    result: { content: `Invalid input for ${tool}: ${issues}. Expected ${shape}.`, isError: true },
  };
}

/** Publishes an automatic checkpoint on the task's stream. */
export function emitCheckpoint(
  context: ToolContext,
  tool: string,
  id: string,
  what: string,
  path?: string,
): void {
  context.emit({
    kind: "checkpoint",
    text: `Checkpoint ${id} before ${what}`,
    tool,
    ...(path ? { path } : {}),
    detail: id,
  });
}

/** "1 file", "2 files". */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
