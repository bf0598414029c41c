/**
 * The one error of an invalid agent file (IDENTITY.md, a SKILL.md, a tool in code the build could
 * not bundle), and how callers are told of it. Pure: imports only the Position type.
 */
import type { Position } from "./identity-position.ts";

/**
 * Thrown for any invalid IDENTITY.md; `message` reads `<file>:<line>:<column>: <field>: <reason>`
 * (the position when one is known, the field when the problem has one).
 */
export class IdentityError extends Error {
  readonly file: string;
  /** Dotted path such as `frontmatter.tools.deny.0`, `body`, or null for YAML syntax errors. */
  readonly field: string | null;
  /** Where in the file (1-based), when known. */
  readonly position: Position | null;

  constructor(file: string, field: string | null, reason: string, position?: Position) {
    const where = position ? `${file}:${position.line}:${position.column}` : file;
    super(field === null ? `${where}: ${reason}` : `${where}: ${field}: ${reason}`);
    this.name = "IdentityError";
    this.file = file;
    this.field = field;
    this.position = position ?? null;
  }
}

/**
 * Why an agent whose files hold `error` is not served, in words for its callers: `its IDENTITY.md
 * is invalid: ...`, `one of its skills is invalid: ...` or `one of its tools is invalid: ...`.
 */
export function unavailableReason(error: IdentityError): string {
  const what = /\.ts$/.test(error.file)
    ? "one of its tools"
    : /(SKILL\.md( \(uploaded\))?|\/skills)$/.test(error.file)
      ? "one of its skills"
      : "its IDENTITY.md";
  return `${what} is invalid: ${error.message}`;
}
