/**
 * The one error of an invalid IDENTITY.md. Pure: imports only the Position type.
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
