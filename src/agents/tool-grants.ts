/**
 * Rules on the tools an IDENTITY.md grants beyond its own `tools.allow` / `tools.deny`: a
 * read-only agent (one whose `deny` names both `write_file` and `edit_file`, or the `workspace`
 * domain) gets no `run_code` unless its file grants it, by naming `run_code` (or the `code`
 * domain) in `tools.allow` or by a `code:` mapping. run_code's test mode records its runs in
 * feature_status.json, and code the model writes is a way around a read-only agent's deny list,
 * so an agent that must not change the workspace does not run code by default (the shipped
 * researcher and deep-thinker among them). Pure.
 */

/** The tool lists of a frontmatter, as parsed. */
interface Grants {
  allow: readonly string[] | null;
  deny: readonly string[];
  /** Whether the frontmatter has a `code:` mapping (run_code's limits and bindings). */
  code: boolean;
}

/** Whether an agent with this `deny` list can change no workspace file. */
export function isReadOnly(deny: readonly string[]): boolean {
  return deny.includes("workspace") || (deny.includes("write_file") && deny.includes("edit_file"));
}

/** Whether the file grants run_code explicitly. */
function grantsCode(grants: Grants): boolean {
  return (
    grants.code ||
    (grants.allow?.includes("run_code") ?? false) ||
    (grants.allow?.includes("code") ?? false)
  );
}

/** The deny list an agent gets: its own, plus `run_code` for a read-only agent not granted it. */
export function effectiveDeny(grants: Grants): string[] {
  const deny = [...grants.deny];
  if (
    isReadOnly(deny) &&
    !grantsCode(grants) &&
    !deny.includes("run_code") &&
    !deny.includes("code")
  )
    deny.push("run_code");
  return deny;
}
