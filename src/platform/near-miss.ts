/**
 * Near misses of a name among known ones, for "did you mean" hints (a JSON-RPC method, a model
 * id): the edit distance of two strings, where an edit is one character inserted, deleted,
 * replaced, or two neighbours swapped (optimal string alignment), and the one known name
 * closest to a given one within a bound. Case is ignored. Pure: no I/O, no imports, so the Worker
 * and Node scripts share it.
 */

/** The names compared are short; a longer input is no near miss of anything. */
const MAX_LENGTH = 200;

/**
 * The edit distance of `a` and `b` (case-insensitive), or `limit + 1` as soon as it is known to
 * exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (Math.abs(x.length - y.length) > limit) return limit + 1;
  // Three rows of the dynamic programme: two back (for swaps), the last, the current.
  let before: number[] = [];
  let last = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min((last[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (last[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        d = Math.min(d, (before[j - 2] ?? 0) + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = last;
    last = row;
  }
  return last[y.length] ?? 0;
}

/**
 * The name of `known` closest to `name` within `maxEdits` edits, or null when `name` is known or
 * nothing is that close. A name that differs only in case is the closest of all; ties go to the
 * earlier name.
 */
export function nearestName(
  name: string,
  known: readonly string[],
  maxEdits: number,
): string | null {
  if (name.length > MAX_LENGTH) return null;
  let found: string | null = null;
  let bestDistance = maxEdits + 1;
  for (const candidate of known) {
    if (candidate === name) return null;
    // Only the case differs: nearer than any edit.
    const distance = editDistance(name, candidate, maxEdits) || 0.5;
    if (distance < bestDistance) {
      found = candidate;
      bestDistance = distance;
    }
  }
  return found;
}
