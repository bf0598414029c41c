/**
 * Where a frontmatter field is in an IDENTITY.md: the line and column (1-based, in the whole file)
 * of the YAML node at a path, or of its nearest parent that exists (a missing key points at the
 * mapping that lacks it). Pure: no I/O; imports only yaml.
 */
import { type Document, isMap, isScalar, type Node } from "yaml";

/** A place in a file. */
export interface Position {
  line: number;
  column: number;
}

/** The frontmatter's YAML starts on the file's second line, after the opening `---`. */
const FIRST_YAML_LINE = 2;

/** The position of `offset` in `source` (the YAML text), in file terms. */
export function positionAt(source: string, offset: number): Position {
  const before = source.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return {
    line: FIRST_YAML_LINE + lines.length - 1,
    column: (lines.at(-1)?.length ?? 0) + 1,
  };
}

function start(node: unknown): number | null {
  const range = (node as Node | null)?.range;
  return Array.isArray(range) ? range[0] : null;
}

/**
 * The position of the value at `path` in `doc` (parsed from `source`); with `key`, of that key
 * in the mapping at `path`.
 */
export function positionOf(
  doc: Document,
  source: string,
  path: ReadonlyArray<string | number>,
  key?: string,
): Position {
  for (let depth = path.length; depth >= 0; depth--) {
    const at = path.slice(0, depth);
    const node = at.length === 0 ? doc.contents : doc.getIn(at, true);
    if (depth === path.length && key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      const offset = start(pair?.key);
      if (offset !== null) return positionAt(source, offset);
    }
    const offset = start(node);
    if (offset !== null) return positionAt(source, offset);
  }
  return { line: FIRST_YAML_LINE, column: 1 };
}
