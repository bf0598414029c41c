/**
 * A JSON value written with two-space indentation, as `JSON.stringify(value, null, 2)` writes it,
 * but only its first `max` characters, and without building the rest: the writer stops as soon as
 * it has `max`, so a payload of megabytes costs what its first characters cost. For values read
 * by `JSON.parse` (objects, arrays, strings, numbers, booleans, null), whose depth the edge bounded
 * (protocol/json-shape.ts): the writer recurses once per level. Pure.
 */

/**
 * `text` as a JSON string, escaped no further than `max` characters could show: every character
 * escapes to one or more, so the first `max + 1` give the same first `max` characters.
 */
const quoted = (text: string, max: number) => JSON.stringify(text.slice(0, max + 1));

/**
 * The pieces of `value`'s indented JSON, in order; `pad` is the indentation of its line, and no
 * more than `max` characters of any piece are ever shown.
 */
function* pieces(value: unknown, pad: string, max: number): Generator<string> {
  if (Array.isArray(value)) {
    if (value.length === 0) return yield "[]";
    const inner = `${pad}  `;
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? `[\n${inner}` : `,\n${inner}`;
      yield* pieces(value[i] ?? null, inner, max);
    }
    return yield `\n${pad}]`;
  }
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    if (keys.length === 0) return yield "{}";
    const inner = `${pad}  `;
    for (const [i, key] of keys.entries()) {
      yield `${i === 0 ? "{\n" : ",\n"}${inner}${quoted(key, max)}: `;
      yield* pieces((value as Record<string, unknown>)[key], inner, max);
    }
    return yield `\n${pad}}`;
  }
  yield typeof value === "string" ? quoted(value, max) : (JSON.stringify(value) ?? "null");
}

/**
 * The first `max` characters of `JSON.stringify(value, null, 2)`, and whether that was all of it.
 * A long string is escaped only as far as it could show.
 */
export function boundedPrettyJson(value: unknown, max: number): { text: string; cut: boolean } {
  let text = "";
  for (const piece of pieces(value, "", max)) {
    const room = max - text.length;
    if (piece.length <= room) {
      text += piece;
      continue;
    }
    return { text: text + piece.slice(0, room), cut: true };
  }
  return { text, cut: false };
}
