/**
 * The state files the harness keeps in a workspace's root beside the agent's own files:
 * PROGRESS.json (what is done, what remains, decisions, blockers; zod-checked), HANDOFF.md (the
 * latest task's handoff note) and decisions.log (appended at the end of each task). Each is
 * bounded: PROGRESS.json's lists by the schema (a file over the bounds, however it was written,
 * reads clipped to them), the log by rolling over.
 */
import { z } from "zod";
import type { WorkspaceApi } from "./types.ts";

export const PROGRESS_FILE = "PROGRESS.json";
export const HANDOFF_FILE = "HANDOFF.md";
export const DECISIONS_FILE = "decisions.log";

/** Entries per PROGRESS.json list, and characters per entry. */
export const PROGRESS_MAX_ITEMS = 50;
export const PROGRESS_ITEM_CHARS = 500;

const Items = z
  .array(
    z
      .string()
      .trim()
      .min(1, "entries must not be empty")
      .max(PROGRESS_ITEM_CHARS, `entries must be at most ${PROGRESS_ITEM_CHARS} characters`),
  )
  .max(PROGRESS_MAX_ITEMS, `at most ${PROGRESS_MAX_ITEMS} entries per list`);

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

/** A list as read: strings only, clipped to the bounds (a file may predate them). */
const ReadItems = z.array(z.string()).transform((items) =>
  items
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .slice(0, PROGRESS_MAX_ITEMS)
    .map((item) =>
      item.length > PROGRESS_ITEM_CHARS ? `${item.slice(0, PROGRESS_ITEM_CHARS - 1)}…` : item,
    ),
);
const ReadProgress = z.strictObject({
  accomplished: ReadItems,
  remaining: ReadItems,
  decisions: ReadItems,
  blockers: ReadItems,
});

/** PROGRESS.json's text, checked and clipped to the bounds (null text: no file). */
export function parseProgress(text: string | null): {
  progress: Progress | null;
  invalid?: string;
} {
  if (text === null) return { progress: null };
  try {
    const parsed = ReadProgress.safeParse(JSON.parse(text));
    if (parsed.success) return { progress: parsed.data };
    const issue = parsed.error.issues[0];
    return {
      progress: null,
      invalid: issue ? `${issue.path.join(".") || "PROGRESS.json"}: ${issue.message}` : "invalid",
    };
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
