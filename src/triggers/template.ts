/**
 * Renders a trigger's prompt: `{{a.b.0.c}}` is that field of the payload (strings as they are,
 * other values as JSON, a missing field as nothing); `{{$json}}` is the whole payload (at most
 * 20,000 characters); other `$` names come from `extra` (`$event`, `$delivery`, `$time`...).
 */

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
      const json = JSON.stringify(payload, null, 2) ?? "";
      return json.length > MAX_JSON ? `${json.slice(0, MAX_JSON)}\n[truncated]` : json;
    }
    if (path.startsWith("$")) return extra[path.slice(1)] ?? "";
    return show(lookup(payload, path));
  });
}
