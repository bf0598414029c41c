/**
 * zod validation of a tool's input with a refusal the model can act on: the tool, the fields at
 * fault and, when given, the expected shape. Every tool parses its input through this, most of
 * them by declaring themselves with {@link defineTool}.
 */
import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../loop/contracts.ts";
import { lazy } from "../utils/lazy.ts";
import type { WsResult } from "../workspace/types.ts";

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
  /**
   * What the input must pass (a strict object; field descriptions by `.describe()`): the schema
   * the model sees is made from it, and a refusal names the fields at fault. A function that
   * builds it is called once, when the tool is first listed or run, not when its module loads.
   */
  input: z.ZodType<T> | (() => z.ZodType<T>);
  /** It only reads: a call a restart cut off is run again (see `Tool.readOnly`). */
  readOnly?: boolean;
  run(input: T, context: ToolContext): Promise<ToolResult>;
}

/**
 * The JSON Schema the model sees for a tool's input, made from its zod schema (as input: a field
 * with a default is optional): one declaration, so what the model is told and what is enforced
 * cannot drift apart. Closed at the top (`additionalProperties: false`); without the `$schema`
 * tag and the integer bounds zod adds for safe integers, which tell the model nothing.
 */
export function inputSchemaOf(input: z.ZodType): Tool["inputSchema"] {
  const { $schema: _tag, ...schema } = z.toJSONSchema(input, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  const cleaned = withoutSafeBounds(schema) as Record<string, unknown>;
  const properties = (cleaned.properties ?? {}) as Record<string, unknown>;
  return { ...cleaned, type: "object", properties, additionalProperties: false };
}

function withoutSafeBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeBounds);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(key === "maximum" && item === Number.MAX_SAFE_INTEGER))
      .filter(([key, item]) => !(key === "minimum" && item === Number.MIN_SAFE_INTEGER))
      .map(([key, item]) => [key, withoutSafeBounds(item)]),
  );
}

/** A tool's answer from a workspace or memory result: its refusal as a tool error, else `render`'s. */
export function withValue<T>(result: WsResult<T>, render: (value: T) => ToolResult): ToolResult {
  return result.ok ? render(result.value) : { content: result.error, isError: true };
}

/** A required text field: trimmed, not empty, at most `max` characters (each refusal says which). */
export function requiredText(max: number) {
  return z.string().trim().min(1, "is required").max(max, `is longer than ${max} characters`);
}

/** A `max_chars` field: a page size the tool caps at `max` (a larger one is not refused). */
export function maxCharsField(defaultChars: number, max: number) {
  return z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Most characters to return (default ${defaultChars}, at most ${max}).`);
}

/** A schema's expected shape in one line, as a refusal quotes it: `{ path: string, limit?: integer }`. */
export function shapeOf(schema: Tool["inputSchema"]): string {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(
    ([name, property]) => `${name}${required.has(name) ? "" : "?"}: ${typeText(property)}`,
  );
  return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
}

function typeText(property: unknown): string {
  const p = (property ?? {}) as { type?: unknown; enum?: unknown[]; items?: unknown };
  if (Array.isArray(p.enum)) return p.enum.map((v) => JSON.stringify(v)).join("|");
  if (Array.isArray(p.type)) return p.type.join("|");
  if (p.type === "array") return `${typeText(p.items)}[]`;
  return typeof p.type === "string" ? p.type : "any";
}

/**
 * A {@link Tool} from its spec: the input schema is made from `input` ({@link inputSchemaOf}) when
 * first read, not when the tool's module loads (every isolate loads every tool; zod's JSON Schema
 * conversion of them all was a third of the Worker's startup CPU; a spec's `input` given as a
 * function is built then too), and `run` gets the parsed input (an invalid one is refused through
 * {@link parseInput}, quoting the expected shape, before the work starts).
 */
export function defineTool<T>(spec: ToolSpec<T>): Tool {
  const { name, domain, description, run, readOnly } = spec;
  const given = spec.input;
  const input = typeof given === "function" ? lazy(given) : () => given;
  const schemaNow = lazy(() => inputSchemaOf(input()));
  return {
    name,
    domain,
    description,
    ...(readOnly ? { readOnly } : {}),
    get inputSchema() {
      return schemaNow();
    },
    async run(raw, context) {
      // The model was shown the schema before it called: it is made by now.
      const parsed = parseInput(name, input(), raw, shapeOf(schemaNow()));
      return parsed.ok ? run(parsed.data, context) : parsed.result;
    },
  };
}

/**
 * A tool that takes no input (`{}`; anything else is refused): its name, domain, description,
 * work, and whether it only reads.
 */
export function inputlessTool(
  name: string,
  domain: string,
  description: string,
  run: (context: ToolContext) => Promise<ToolResult>,
  readOnly = false,
): Tool {
  return defineTool({
    name,
    domain,
    description,
    readOnly,
    input: () => z.strictObject({}),
    run: (_input, context) => run(context),
  });
}
