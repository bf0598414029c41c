/**
 * defineTool (src/tools/input.ts): the closed input schema it declares, the parsed input its run
 * gets, and the refusal of an invalid input before any work.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/tools/input.ts";
import { toolContext } from "../../helpers/tool-context.ts";

const echo = defineTool({
  name: "echo",
  domain: "test",
  description: "Says the text back.",
  input: z.strictObject({ text: z.string().min(1), times: z.number().int().default(1) }),
  shape: "{ text: string, times?: integer }",
  properties: { text: { type: "string" }, times: { type: "integer" } },
  required: ["text"],
  run: async ({ text, times }) => ({ content: text.repeat(times) }),
});

describe("defineTool", () => {
  it("declares a closed object schema, with required only when given", () => {
    expect(echo.inputSchema).toEqual({
      type: "object",
      properties: { text: { type: "string" }, times: { type: "integer" } },
      required: ["text"],
      additionalProperties: false,
    });
    const none = defineTool({
      name: "none",
      domain: "test",
      description: "No input.",
      input: z.strictObject({}),
      properties: {},
      run: async () => ({ content: "ok" }),
    });
    expect(Object.keys(none.inputSchema)).toEqual(["type", "properties", "additionalProperties"]);
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
