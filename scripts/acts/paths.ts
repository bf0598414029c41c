/**
 * The dot paths of ACTS (`task.id`, `task.artifacts[0].parts[*]`, `error.data[*]`): named
 * members, `[n]` indexes and `[*]` wildcards, resolved against a JSON value. A path that leads
 * nowhere resolves to nothing (no values; `undefined` for one value). Pure.
 */
import { isMap } from "./json.ts";

/** One step of a path: a member name, an index, or every element. */
type Segment = { member: string } | { index: number } | { every: true };

const SEGMENT = /([^.[\]]+)|\[(\d+|\*)\]/g;

/** The segments of a path (an empty path is the value itself). */
function segments(path: string): Segment[] {
  const out: Segment[] = [];
  for (const [, member, bracket] of path.matchAll(SEGMENT)) {
    if (member !== undefined) out.push({ member });
    else if (bracket === "*") out.push({ every: true });
    else out.push({ index: Number(bracket) });
  }
  return out;
}

/** Every value `path` reaches in `root` (wildcards expand; a missing member reaches nothing). */
export function resolveAll(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const segment of segments(path)) {
    const next: unknown[] = [];
    for (const value of current) {
      if ("every" in segment) {
        if (Array.isArray(value)) next.push(...value);
      } else if ("index" in segment) {
        if (Array.isArray(value) && segment.index < value.length) next.push(value[segment.index]);
      } else if (isMap(value) && Object.hasOwn(value, segment.member)) {
        next.push(value[segment.member]);
      }
    }
    current = next;
  }
  return current;
}

/** The one value `path` reaches in `root`, or undefined. */
export const resolveOne = (root: unknown, path: string): unknown => resolveAll(root, path)[0];
