/**
 * The state files the harness keeps in a workspace's root beside the agent's own files:
 * PROGRESS.json (what is done, what remains, decisions, blockers; zod-checked), HANDOFF.md (the
 * latest task's handoff note) and decisions.log (appended at the end of each task).
 */
import { z } from "zod";
import type { WorkspaceApi } from "./types.ts";

export const PROGRESS_FILE = "PROGRESS.json";
export const HANDOFF_FILE = "HANDOFF.md";
export const DECISIONS_FILE = "decisions.log";

const Items = z.array(z.string().trim().min(1, "entries must not be empty").max(2000)).max(200);

/** PROGRESS.json. */
export const ProgressSchema = z.strictObject({
  accomplished: Items,
  remaining: Items,
  decisions: Items,
  blockers: Items,
});
export type Progress = z.infer<typeof ProgressSchema>;

/** An update: any of the four lists, each replacing the stored one. */
export const ProgressUpdateSchema = ProgressSchema.partial();

export const EMPTY_PROGRESS: Progress = {
  accomplished: [],
  remaining: [],
  decisions: [],
  blockers: [],
};

/** PROGRESS.json as stored, or null when there is none; `invalid` when it does not parse. */
export async function readProgress(
  workspace: WorkspaceApi,
): Promise<{ progress: Progress | null; invalid?: string }> {
  return parseProgress(await readText(workspace, PROGRESS_FILE));
}

/** PROGRESS.json's text, checked (null text: no file). */
export function parseProgress(text: string | null): {
  progress: Progress | null;
  invalid?: string;
} {
  if (text === null) return { progress: null };
  try {
    const parsed = ProgressSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { progress: parsed.data };
    return { progress: null, invalid: parsed.error.issues[0]?.message ?? "invalid" };
  } catch {
    return { progress: null, invalid: "PROGRESS.json is not JSON" };
  }
}

/** A text file's whole content (read page by page), or null. */
export async function readText(workspace: WorkspaceApi, path: string): Promise<string | null> {
  let text = "";
  for (let offset = 1; ; ) {
    const page = await workspace.read(path, { offset });
    if (!page.ok) return offset === 1 ? null : text;
    text += page.value.content;
    if (page.value.toLine >= page.value.totalLines) return text;
    offset = page.value.toLine + 1;
  }
}
