/**
 * defineTool (src/tools/input.ts): the closed input schema it makes from the zod input (when first
 * read), the parsed input its run gets, and the refusal of an invalid input before any work.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Tool } from "../../../src/loop/contracts.ts";
import { allTools } from "../../../src/tools/catalog.ts";
import { defineTool, shapeOf } from "../../../src/tools/input.ts";
import { toolContext } from "../../helpers/tool-context.ts";

const echo = defineTool({
  name: "echo",
  domain: "test",
  description: "Says the text back.",
  input: z.strictObject({
    text: z.string().min(1).describe("What to say"),
    times: z.number().int().default(1),
  }),
  run: async ({ text, times }) => ({ content: text.repeat(times) }),
});

describe("defineTool", () => {
  it("declares the zod input as a closed object schema, with required only when there is one", () => {
    // A field with a default is optional to the caller; zod's safe-integer bounds are left out.
    expect(echo.inputSchema).toEqual({
      type: "object",
      properties: {
        text: { type: "string", minLength: 1, description: "What to say" },
        times: { type: "integer", default: 1 },
      },
      required: ["text"],
      additionalProperties: false,
    });
    const none = defineTool({
      name: "none",
      domain: "test",
      description: "No input.",
      input: z.strictObject({}),
      run: async () => ({ content: "ok" }),
    });
    expect(Object.keys(none.inputSchema)).toEqual(["type", "properties", "additionalProperties"]);
  });

  it("makes the input schema when it is first read, not when the tool is declared", () => {
    // Every isolate declares every tool at its start: the JSON Schema waits for its first reader.
    let touched = false;
    const input = z.strictObject({ text: z.string() });
    const watched = new Proxy(input, {
      get(target, key, receiver) {
        touched = true;
        return Reflect.get(target, key, receiver);
      },
    });
    const tool = defineTool({
      name: "lazy",
      domain: "test",
      description: "Declared only.",
      input: watched,
      run: async () => ({ content: "" }),
    });
    expect(touched).toBe(false);
    expect(tool.inputSchema.properties).toEqual({ text: { type: "string" } });
    expect(touched).toBe(true);
    expect(tool.inputSchema).toBe(tool.inputSchema);
  });

  it("runs on the parsed input (defaults applied)", async () => {
    expect(await echo.run({ text: "ab" }, toolContext())).toEqual({ content: "ab" });
    expect(await echo.run({ text: "ab", times: 2 }, toolContext())).toEqual({ content: "abab" });
  });

  it("refuses invalid input naming the tool, the field and the shape, without running", async () => {
    expect(await echo.run({ text: "" }, toolContext())).toEqual({
      content:
        "Invalid input for echo: text: Too small: expected string to have >=1 characters. Expected { text: string, times?: integer }.",
      isError: true,
    });
  });
});

describe("the catalog's input schemas", () => {
  const tools = allTools();
  const schemaOf = (name: string) =>
    tools.definitions().find((d) => d.name === name)?.input_schema as Tool["inputSchema"];

  it("are closed objects made from zod, with nothing the model cannot use", () => {
    for (const { name, input_schema: schema } of tools.definitions()) {
      expect(schema.type, name).toBe("object");
      expect(schema.additionalProperties, name).toBe(false);
      const text = JSON.stringify(schema);
      expect(text, name).not.toContain("$schema");
      expect(text, name).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
  });

  it("refuse a key the schema does not declare, quoting the shape", async () => {
    expect(
      await tools.run("list_files", { prefix: "notes/", recursive: true }, toolContext()),
    ).toEqual({
      content:
        'Invalid input for list_files: input: Unrecognized key: "recursive". Expected { prefix?: string }.',
      isError: true,
    });
  });

  it("quote enums, arrays and optional fields in the shape", () => {
    expect(shapeOf(schemaOf("run_code"))).toBe(
      '{ code?: string, language?: "typescript"|"javascript", path?: string, files?: string[], mode?: "run"|"test", tests?: string[], feature?: string, input?: string, timeout_ms?: integer }',
    );
  });
});
