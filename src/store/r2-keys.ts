/**
 * The R2 key layout, pinned: later work extends it, never moves it.
 *
 *   agents/<agent>/users/<owner>/<path>   everything per user of an agent: blobs/ (workspace
 *                                         files), memory/ (CONTEXT.md), ...
 *   agents/<agent>/shared/<path>          what all users of an agent share (its shared CONTEXT.md,
 *                                         an IDENTITY.md an admin uploaded)
 *   tasks/<taskId>/<path>                 a task's own files: artifacts/<artifactId>.<ext>
 *   scratch/<owner>/<scratchId>/<path>    a conversation's scratchpad (shared by its tasks and their
 *                                         sub-agents; scratchId derives from the conversation)
 *   harness/<file>                        deployment-wide state (agent-overrides.json)
 *
 * Every segment is checked so no input can climb out of its prefix. Pure: no I/O.
 */

import { requireConcreteOwner } from "../auth/anonymous.ts";

/** Raised for a key segment or path that could escape its prefix. */
export class KeyError extends Error {
  override readonly name = "KeyError";
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,255}$/;

function segment(kind: string, value: string): string {
  if (!SEGMENT.test(value) || value.includes("..")) {
    throw new KeyError(`invalid ${kind} for a storage key: ${JSON.stringify(value.slice(0, 80))}`);
  }
  return value;
}

/**
 * Normalises a relative path inside a prefix: collapses `.` and empty segments; refuses `..`,
 * absolute paths, backslashes, control characters and percent-encoded escapes.
 */
export function confinedPath(path: string): string {
  if (path.startsWith("/") || path.includes("\\") || /%[0-9a-fA-F]{2}/.test(path)) {
    throw new KeyError(
      `path must be relative, without backslashes or escapes: ${JSON.stringify(path)}`,
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new KeyError("path contains control characters");
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.length === 0) throw new KeyError("path is empty");
  if (parts.some((p) => p === ".."))
    throw new KeyError(`path may not contain '..': ${JSON.stringify(path)}`);
  return parts.join("/");
}

/** Key of a per-user object of an agent (never of the anonymous claim: a conversation's owner). */
export function userKey(agent: string, owner: string, path: string): string {
  const who = segment("owner", requireConcreteOwner(owner));
  return `agents/${segment("agent", agent)}/users/${who}/${confinedPath(path)}`;
}

/** The prefix of everything `owner` keeps with `agent`. */
export function userPrefix(agent: string, owner: string): string {
  return `agents/${segment("agent", agent)}/users/${segment("owner", requireConcreteOwner(owner))}/`;
}

/** Key of an object all users of an agent share. */
export function sharedKey(agent: string, path: string): string {
  return `agents/${segment("agent", agent)}/shared/${confinedPath(path)}`;
}

/** Key of a file in the scratchpad `scratchId` of `owner`. */
export function scratchKey(owner: string, scratchId: string, path: string): string {
  const who = segment("owner", requireConcreteOwner(owner));
  return `scratch/${who}/${segment("scratchpad id", scratchId)}/${confinedPath(path)}`;
}

/** The prefix of every scratchpad of `owner`, or of one (`scratchId`). */
export function scratchPrefix(owner: string, scratchId?: string): string {
  const who = segment("owner", requireConcreteOwner(owner));
  return scratchId === undefined
    ? `scratch/${who}/`
    : `scratch/${who}/${segment("scratchpad id", scratchId)}/`;
}

/** Key of a task's own object (artifacts). */
export function taskKey(taskId: string, path: string): string {
  return `tasks/${segment("task id", taskId)}/${confinedPath(path)}`;
}
