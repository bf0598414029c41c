/**
 * What a message's parts say, read the one way every face and the remote client read them: their
 * text, and the form a question asks to be filled in (a data part `{ kind: "form" | "approval",
 * schema }`, as loop/calls/suspension.ts writes it and a remote agent's question passes it on). Pure: no
 * I/O.
 */
import { isJsonObject } from "./json-shape.ts";
import type { Part } from "./wire.ts";

/** How {@link partsText} reads parts. */
export interface PartsTextOptions {
  /**
   * Data parts as their JSON, for a model reading another agent's answer (a form, a record):
   * remote/sdk-codec.ts. By default a data part has no text.
   */
  dataAsJson?: boolean;
}

/** The text of `parts`: each part's text, empty ones left out, one line apart. */
export function partsText(
  parts: readonly Part[] | undefined,
  options: PartsTextOptions = {},
): string {
  return (parts ?? [])
    .map(
      (part) =>
        part.text ??
        (options.dataAsJson && part.data !== undefined ? JSON.stringify(part.data) : ""),
    )
    .filter((text) => text !== "")
    .join("\n");
}

/** The form (a JSON schema) that `parts` ask to be filled in, if they ask one. */
export function formIn(parts: readonly Part[] | undefined): Record<string, unknown> | null {
  for (const part of parts ?? []) {
    const data = part.data;
    if (!isJsonObject(data)) continue;
    if ((data.kind === "form" || data.kind === "approval") && isJsonObject(data.schema))
      return data.schema;
  }
  return null;
}
