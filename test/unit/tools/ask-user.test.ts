/**
 * ask_user (src/tools/ask-user.ts): the form it asks for, and the refusal of a `required` that
 * names no field, whatever the name.
 */
import { describe, expect, it } from "vitest";
import { askUserTool } from "../../../src/tools/ask-user.ts";
import { toolContext } from "../../helpers/tool-context.ts";

describe("ask_user", () => {
  it("asks with a form of the given fields, the required ones listed", async () => {
    const result = await askUserTool.run(
      { question: "Which city?", fields: { city: { type: "string" } }, required: ["city"] },
      toolContext(),
    );
    expect(result.suspend).toEqual({
      kind: "question",
      question: "Which city?",
      form: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
  });

  it("refuses a required name that is not a field, even one every object has", async () => {
    for (const name of ["constructor", "toString", "city"]) {
      const result = await askUserTool.run(
        { question: "Which?", fields: { other: { type: "string" } }, required: [name] },
        toolContext(),
      );
      expect(result, name).toMatchObject({ isError: true });
      expect(result.content, name).toContain(`not in fields: ${name}`);
    }
  });
});
