/**
 * The shape of untrusted JSON: whether a value is a JSON object (the one guard every reader of
 * parsed JSON uses), and the bound checked once at the edge right after a body is parsed: how deep
 * objects and arrays may nest. A value nested N deep costs O(N²) to pretty-print and
 * O(N) stack in every recursive walk, so depth is refused before anything walks it. Iterative:
 * checking never recurses, whatever the input. Pure: no I/O.
 */

/** A JSON object: a record of fields (never an array or null). */
export type JsonObject = Record<string, unknown>;

/** True when `value` is a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The deepest nesting of objects and arrays a request body may have (the body itself is 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * The path to the first object or array nested deeper than `max` levels (the value itself is
 * level 1), or null when the value is within the bound.
 */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): Array<string | number> | null {
  interface Node {
    value: unknown;
    depth: number;
    key: string | number;
    parent: Node | null;
  }
  const stack: Node[] = [{ value, depth: 0, key: "", parent: null }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const current = node.value;
    if (typeof current !== "object" || current === null) continue;
    if (node.depth >= max) {
      const path: Array<string | number> = [];
      for (let at: Node | null = node; at?.parent; at = at.parent) path.unshift(at.key);
      return path;
    }
    const depth = node.depth + 1;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++)
        stack.push({ value: current[i], depth, key: i, parent: node });
    } else if (isJsonObject(current)) {
      for (const [key, item] of Object.entries(current))
        stack.push({ value: item, depth, key, parent: node });
    }
  }
  return null;
}

/** The refusal's wording for a value nested deeper than {@link MAX_JSON_DEPTH}. */
export const TOO_DEEP_MESSAGE = `nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
