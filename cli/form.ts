/**
 * A form field typed at the terminal: the line as the field's value, or why it does not fit, by
 * the checks the server makes on a form's values (src/loop/calls/form-answer.ts): a required field is
 * present, a value is of its type (string, number, integer, boolean) and one of its choices
 * (`enum`). The chat asks again on a problem, so the task is not answered with values it refuses.
 * Pure: no I/O.
 */

/** One field of a form, as render.ts reads it. */
export interface FormField {
  name: string;
  type: string;
  options?: Array<string | number>;
  required: boolean;
}

/** The value of a field, nothing (an optional field left empty), or why the line does not fit. */
export type FieldAnswer = { value: unknown } | { skip: true } | { problem: string };

const YES = /^(y|yes|true|1)$/i;
const NO = /^(n|no|false|0)$/i;

/** The line as the value of `field`. */
export function answerField(field: FormField, line: string): FieldAnswer {
  const text = line.trim();
  const choices = field.options ? ` (one of: ${field.options.join(", ")})` : "";
  if (text === "")
    return field.required ? { problem: `${field.name} is required${choices}` } : { skip: true };
  let value: unknown = text;
  if (field.type === "number" || field.type === "integer") {
    value = Number(text);
    if (!Number.isFinite(value) || (field.type === "integer" && !Number.isInteger(value)))
      return {
        problem: `${field.name} needs ${field.type === "integer" ? "a whole number" : "a number"}, not "${text}"${choices}`,
      };
  } else if (field.type === "boolean") {
    if (!YES.test(text) && !NO.test(text))
      return { problem: `${field.name} needs yes or no, not "${text}"` };
    value = YES.test(text);
  }
  if (field.options) {
    // A choice is matched as the server does (same value and type), a number typed as text too.
    const match = field.options.find((c) => c === value || String(c) === text);
    if (match === undefined)
      return { problem: `"${text}" is not a choice of ${field.name}${choices}` };
    value = match;
  }
  return { value };
}
