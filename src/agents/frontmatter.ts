/**
 * The frontmatter of an agent's Markdown files (IDENTITY.md, a skill's SKILL.md): a first `---`
 * line, YAML, a closing `---` line, then the Markdown body. Pure (imports only yaml and the
 * error and position modules); every problem is one IdentityError naming the file, the line and
 * column, so each file's parser reports its own fields the same way.
 */
import { type Document, parseDocument } from "yaml";
import { IdentityError } from "./identity-error.ts";
import { positionAt, positionOf } from "./identity-position.ts";

/** A file split at its frontmatter: the YAML (text, document, plain value) and the body. */
export interface Frontmatter {
  /** The YAML between the `---` lines (positions are relative to it; see identity-position.ts). */
  source: string;
  doc: Document;
  /** The YAML's value: a mapping of keys as written. */
  raw: Record<string, unknown>;
  /** The Markdown after the closing `---`, trimmed. */
  body: string;
  /** The file's line (1-based) just after the closing `---`. */
  bodyLine: number;
}

/** Splits `text` (the file `file`) at its frontmatter and reads the YAML as a mapping. */
export function readFrontmatter(file: string, text: string): Frontmatter {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  if (lines[0]?.trimEnd() !== "---") {
    throw new IdentityError(
      file,
      "frontmatter",
      "missing; the file must start with a '---' line, then YAML, then a closing '---' line",
      { line: 1, column: 1 },
    );
  }
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close < 0) {
    throw new IdentityError(file, "frontmatter", "not closed; add a '---' line after the YAML", {
      line: 1,
      column: 1,
    });
  }
  const source = lines.slice(1, close).join("\n");
  const doc = readYaml(file, source);
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new IdentityError(file, "frontmatter", "expected a YAML mapping of keys to values", {
      line: 2,
      column: 1,
    });
  }
  return {
    source,
    doc,
    // A YAML mapping read as JS is a plain object of its keys (checked just above).
    raw: raw as Record<string, unknown>,
    body: lines
      .slice(close + 1)
      .join("\n")
      .trim(),
    bodyLine: close + 2,
  };
}

/**
 * The error of the value at `path` in the frontmatter (with `key`: of that key in the mapping at
 * `path`), at its position: `<file>:<line>:<column>: frontmatter.<path>: <reason>`.
 */
export function fieldError(
  file: string,
  fm: Pick<Frontmatter, "doc" | "source">,
  path: ReadonlyArray<PropertyKey>,
  reason: string,
  key?: string,
): IdentityError {
  const at = path.map((p) => (typeof p === "number" ? p : String(p)));
  const position = positionOf(fm.doc, fm.source, at, key);
  const field = ["frontmatter", ...at, ...(key === undefined ? [] : [key])].join(".");
  return new IdentityError(file, field, reason, position);
}

function readYaml(file: string, source: string): Document {
  const doc = parseDocument(source, { uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const reason = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:$/, "");
    throw new IdentityError(
      file,
      null,
      `invalid YAML in frontmatter: ${reason}`,
      positionAt(source, error.pos[0]),
    );
  }
  return doc;
}
