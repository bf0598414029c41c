// The form that answers an input-required question: one field per property of the JSON schema
// the agent sent (select for enums, checkbox for booleans, number, text), or a free-text answer
// when there is no schema. Submitting sends the values as a data part (text for free answers).
import { t } from "../i18n/i18n.js";

/** The form schema an input-required status message carries (a question's or an approval's). */
export function formOf(message) {
  return (
    (message?.parts || []).find((p) => p.data?.kind === "form" || p.data?.kind === "approval")?.data
      ?.schema ?? null
  );
}

function field(name, spec, required) {
  if (Array.isArray(spec.enum)) {
    const select = document.createElement("select");
    select.name = name;
    select.required = required;
    for (const value of spec.enum) select.append(new Option(String(value), String(value)));
    return select;
  }
  const input = document.createElement("input");
  input.name = name;
  if (spec.type === "boolean") input.type = "checkbox";
  else {
    input.type = spec.type === "number" || spec.type === "integer" ? "number" : "text";
    input.required = required;
  }
  return input;
}

/** A form for `schema` (null: a free answer); `submit(parts)` is called once with the answer. */
export function askForm(schema, submit) {
  const form = document.createElement("form");
  form.className = "answer-form";
  form.setAttribute("aria-label", t("answerTheAgent"));
  const fields = Object.entries(schema?.properties || {});
  const label = (text, control) => {
    const node = document.createElement("label");
    node.append(text, control);
    form.append(node);
  };
  if (fields.length === 0) {
    const area = document.createElement("textarea");
    area.name = "answer";
    area.rows = 2;
    area.required = true;
    label(t("yourAnswer"), area);
  }
  for (const [name, spec] of fields)
    label(spec.title || name, field(name, spec, (schema.required || []).includes(name)));
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = t("sendAnswer");
  form.append(button);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    let parts;
    if (fields.length === 0) parts = [{ text: String(data.get("answer")) }];
    else {
      const values = {};
      for (const [name, spec] of fields)
        values[name] =
          spec.type === "boolean"
            ? form.elements[name].checked
            : spec.type === "number" || spec.type === "integer"
              ? Number(data.get(name))
              : data.get(name);
      parts = [{ data: values, mediaType: "application/json" }];
    }
    form.remove();
    submit(parts);
  });
  return form;
}
