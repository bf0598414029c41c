/**
 * Renders a trigger's prompt: `{{a.b.0.c}}` is that field of the payload (strings as they are,
 * other values as JSON, a missing field as nothing); `{{$json}}` is the whole payload, indented,
 * at most 20,000 characters of it (written no further: platform/bounded-json.ts); other `$` names
 * come from `extra` (`$event`, `$delivery`, `$time`...), its own entries only.
 */
import { boundedPrettyJson } from "../platform/bounded-json.ts";

const MAX_JSON = 20_000;

function lookup(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const show = (value: unknown): string =>
  value === undefined || value === null
    ? ""
    : typeof value === "string"
      ? value
      : JSON.stringify(value);

/** The prompt with every `{{...}}` filled. */
export function renderPrompt(
  template: string,
  payload: unknown,
  extra: Record<string, string> = {},
): string {
  return template.replace(/\{\{\s*([$\w][\w.$-]*)\s*\}\}/g, (_, path: string) => {
    if (path === "$json") {
      const json = boundedPrettyJson(payload, MAX_JSON);
      return json.cut ? `${json.text}\n[truncated]` : json.text;
    }
    if (path.startsWith("$")) {
      const name = path.slice(1);
      return Object.hasOwn(extra, name) ? (extra[name] ?? "") : "";
    }
    return show(lookup(payload, path));
  });
}
