/**
 * zod validation of a tool's input with a refusal the model can act on: the tool, the fields at
 * fault and, when given, the expected shape. Every tool parses its input through this, most of
 * them by declaring themselves with {@link defineTool}.
 */
import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../loop/contracts.ts";

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

/** A tool as its file declares it: what the model sees, the zod schema of its input, the work. */
export interface ToolSpec<T> {
  name: string;
  domain: string;
  description: string;
  /** The input schema's properties as the model sees them (an object with no other keys). */
  properties: Record<string, unknown>;
  required?: string[];
  /** What the input must pass; a refusal names the fields at fault. */
  input: z.ZodType<T>;
  /** The expected shape, quoted in a refusal. */
  shape?: string;
  run(input: T, context: ToolContext): Promise<ToolResult>;
}

/**
 * A {@link Tool} from its spec: the input schema is `{ type: "object", properties, required?,
 * additionalProperties: false }`, and `run` gets the parsed input (an invalid one is refused
 * through {@link parseInput} before the work starts).
 */
export function defineTool<T>(spec: ToolSpec<T>): Tool {
  const { name, domain, description, properties, required, input, shape, run } = spec;
  return {
    name,
    domain,
    description,
    inputSchema: {
      type: "object",
      properties,
      ...(required ? { required } : {}),
      additionalProperties: false,
    },
    async run(raw, context) {
      const parsed = parseInput(name, input, raw, shape);
      return parsed.ok ? run(parsed.data, context) : parsed.result;
    },
  };
}

/** A tool that takes no input (`{}`; anything else is refused): its name, domain, description, work. */
export function inputlessTool(
  name: string,
  domain: string,
  description: string,
  run: (context: ToolContext) => Promise<ToolResult>,
): Tool {
  return defineTool({
    name,
    domain,
    description,
    properties: {},
    input: z.strictObject({}),
    shape: "{}",
    run: (_input, context) => run(context),
  });
}
