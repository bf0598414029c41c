/**
 * Where a message's file part went: the harness saves each file part a person sends in the
 * caller's workspace (task/message-files.ts) and notes it on the part, under
 * {@link WORKSPACE_FILE_KEY} in the part's metadata: `{ path, size }`, or `{ error }` when it could
 * not be saved. Clients read it in the task's history; the model is told the same with the part
 * (loop/prompt/user-content.ts). Only the harness writes the key: a client's own value is dropped
 * when the message comes in. Pure: no I/O.
 */
import { isJsonObject } from "./json-shape.ts";
import type { Part } from "./wire.ts";

/** The part metadata key of the note. */
export const WORKSPACE_FILE_KEY = "workspaceFile";

/** Where a file part was saved, or why it was not. */
export type WorkspaceFileNote = { path: string; size: number } | { error: string };

/** Whether `part` carries a file (its bytes, or a link to them). */
export const isFilePart = (part: Part): boolean => part.raw !== undefined || part.url !== undefined;

/** The harness's note on `part`, if it has one of the right shape. */
export function workspaceFileOf(part: Part): WorkspaceFileNote | null {
  const note = part.metadata?.[WORKSPACE_FILE_KEY];
  if (!isJsonObject(note)) return null;
  const { path, size, error } = note;
  if (typeof path === "string" && typeof size === "number") return { path, size };
  return typeof error === "string" ? { error } : null;
}

/** `part` with `note` as its workspace note (null: without one, a client's own dropped). */
export function withWorkspaceFile(part: Part, note: WorkspaceFileNote | null): Part {
  const { [WORKSPACE_FILE_KEY]: _, ...rest } = part.metadata ?? {};
  const metadata = note === null ? rest : { ...rest, [WORKSPACE_FILE_KEY]: note };
  const { metadata: __, ...bare } = part;
  return Object.keys(metadata).length > 0 ? { ...bare, metadata } : bare;
}
