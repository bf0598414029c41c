/**
 * `ask_user` (domain `human`): asks the person behind the task a question and waits for the
 * answer. The task goes to input-required with the question as its status message and, when the
 * agent gives `fields`, a form (a data part holding a JSON schema of the fields); a follow-up
 * message on the same task (text, or a data part with the form's values) is the tool's result.
 * With `authorization: true` the task waits in auth-required instead (spec 1.0.1): what the agent
 * needs is the user's authorization, such as a sign-in at a link the question gives.
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import { defineTool, requiredText } from "./input.ts";

const fieldSchema = lazy(() =>
  z.strictObject({
    type: z.enum(["string", "number", "integer", "boolean"]).default("string"),
    description: z.string().max(500).optional(),
    enum: z
      .array(z.union([z.string(), z.number()]))
      .max(50)
      .optional(),
  }),
);
const toolInput = lazy(() =>
  z.strictObject({
    question: requiredText(4_000).describe("One clear question."),
    fields: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), fieldSchema())
      .optional()
      .describe("Optional form fields: name -> { type, description?, enum? }."),
    required: z.array(z.string()).max(50).optional().describe("Fields that must be filled."),
    authorization: z
      .boolean()
      .optional()
      .describe(
        "True when what you need is the user's authorization (a sign-in or a consent, e.g. at a link).",
      ),
  }),
);

/** The `ask_user` tool. */
export const askUserTool = defineTool({
  name: "ask_user",
  domain: "human",
  description:
    "Ask the user a question and wait for their answer; use it when you cannot go on without a decision or a fact only they have, not to confirm what you can check yourself. Optionally give `fields` (name -> {type, description, enum}) to ask for structured values as a form.",
  input: toolInput,
  async run({ question, fields, required, authorization }) {
    // Own fields only: `constructor` is no field of the form, though every object answers to it.
    const unknown = (required ?? []).filter((name) => !fields || !Object.hasOwn(fields, name));
    if (unknown.length > 0) {
      return {
        content: `Invalid input for ask_user: required names fields that are not in fields: ${unknown.join(", ")}.`,
        isError: true,
      };
    }
    const form = fields
      ? {
          type: "object",
          properties: fields,
          ...(required && required.length > 0 ? { required } : {}),
        }
      : undefined;
    return {
      content: "",
      suspend: {
        kind: "question",
        question,
        ...(form ? { form } : {}),
        ...(authorization ? { authorization: true } : {}),
      },
    };
  },
});
