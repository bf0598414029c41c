/** IDENTITY.md texts for the tests of agent identities, and the error parsing one throws. */
import { IdentityError, parseIdentity } from "../../src/agents/identity.ts";

/** An IDENTITY.md of `frontmatter` lines and `body`. */
export function identityText(frontmatter: readonly string[], body: string): string {
  return ["---", ...frontmatter, "---", "", body].join("\n");
}

/** The IdentityError that parsing `text` as `file` throws; fails the test when none is thrown. */
export function identityErrorOf(file: string, text: string): IdentityError {
  try {
    parseIdentity(file, text);
  } catch (error) {
    if (error instanceof IdentityError) return error;
    throw error;
  }
  throw new Error("expected parseIdentity to throw");
}
