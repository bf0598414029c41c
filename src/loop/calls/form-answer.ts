/**
 * Checks a person's answer against the form the task asked (an `ask_user` form, an approval, or a
 * sub-agent's question passed up): every data part of the answer must be the form's values (known
 * fields, of their type, within their `enum`, the required ones present). Text is always a valid
 * answer (a person may reply in words); a question without a form takes any data. Pure: no I/O.
 */

import { z } from "zod";
import { isJsonObject } from "../../protocol/json-shape.ts";
import { formIn } from "../../protocol/parts.ts";
import type { Part } from "../../protocol/wire.ts";
import type { FormSchema, Suspension } from "../contracts.ts";
import { APPROVAL_FORM } from "./suspension.ts";

interface Field {
  type?: unknown;
  enum?: unknown;
}

/** The form the waiting call asked, if any (`question` reads a sub-agent's question parts). */
export function formOf(
  waiting: Suspension,
  question: (childTaskId: string) => Part[] | undefined,
): FormSchema | null {
  if (waiting.kind === "question") return waiting.form ?? null;
  if (waiting.kind === "approval") return APPROVAL_FORM;
  return formIn(question(waiting.childTaskId));
}

function fieldSchema(field: Field): z.ZodType {
  const choices = Array.isArray(field.enum) ? field.enum : null;
  if (choices && choices.length > 0)
    return z.unknown().refine((v) => choices.some((c) => Object.is(c, v)), {
      message: `expected one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`,
    });
  switch (field.type) {
    case "string":
      return z.string();
    case "number":
      return z.number();
    case "integer":
      return z.int();
    case "boolean":
      return z.boolean();
    default:
      return z.unknown();
  }
}

/** The zod schema of a form's values, and its required fields. */
function valuesSchema(form: FormSchema): { schema: z.ZodType; required: string[] } {
  const properties = isJsonObject(form.properties) ? form.properties : {};
  const required = Array.isArray(form.required)
    ? form.required.filter((r): r is string => typeof r === "string")
    : [];
  // Built as own entries: a field may be named like an object's property (`__proto__`).
  const shape = Object.fromEntries(
    Object.entries(properties).map(([name, field]) => [
      name,
      fieldSchema(isJsonObject(field) ? field : {}).optional(),
    ]),
  );
  return { schema: z.strictObject(shape), required };
}

/** Why `parts` do not answer `form`, or null when they do. */
export function formAnswerProblem(form: FormSchema, parts: readonly Part[]): string | null {
  const { schema, required } = valuesSchema(form);
  const problem = (where: string, reason: string) =>
    `the answer does not fit the form: ${where}: ${reason}; send the form's values (or reply in text)`;
  for (const part of parts) {
    if (part.data === undefined) continue;
    const values = part.data;
    // Own values only: a field named `constructor` is not answered by every object's prototype.
    const missing = required.find(
      (name) => !isJsonObject(values) || !Object.hasOwn(values, name) || values[name] === undefined,
    );
    if (missing) return problem(missing, "is required");
    const checked = schema.safeParse(part.data);
    if (checked.success) continue;
    const issue = checked.error.issues[0];
    if (issue?.code === "unrecognized_keys")
      return problem("the form's values", `unknown field ${issue.keys.join(", ")}`);
    return problem(issue?.path.join(".") || "the form's values", issue?.message ?? "invalid");
  }
  return null;
}
