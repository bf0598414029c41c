/**
 * A person's answer checked against the form the task asked (src/loop/calls/form-answer.ts): the
 * required fields must be the answer's own values, whatever they are named.
 */
import { describe, expect, it } from "vitest";
import { formAnswerProblem } from "../../../../src/loop/calls/form-answer.ts";

describe("formAnswerProblem", () => {
  it("accepts the form's values and text, and refuses a missing required field", () => {
    const form = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    expect(formAnswerProblem(form, [{ data: { city: "Lisbon" } }])).toBeNull();
    expect(formAnswerProblem(form, [{ text: "Lisbon, please" }])).toBeNull();
    expect(formAnswerProblem(form, [{ data: {} }])).toMatch(/city: is required/);
  });

  it("refuses a missing required field named like an object's own properties", () => {
    for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
      const form = { type: "object", properties: { [name]: { type: "string" } }, required: [name] };
      expect(formAnswerProblem(form, [{ data: {} }]), name).toMatch(/is required/);
      const answer = JSON.parse(`{"${name}": "yes"}`);
      expect(formAnswerProblem(form, [{ data: answer }]), name).toBeNull();
    }
  });
});
