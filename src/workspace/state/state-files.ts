/**
 * The state files the harness keeps in a workspace's root beside the agent's own files:
 * PROGRESS.json (what is done, what remains, decisions, blockers; zod-checked), HANDOFF.md (the
 * latest task's handoff note) and decisions.log (appended at the end of each task). Each is
 * bounded: PROGRESS.json's lists by the schema (a file over the bounds, however it was written,
 * reads clipped to them), the log by rolling over. The schemas are built on first use.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import type { WorkspaceApi } from "../types.ts";
import { parseJsonFile } from "./json-file.ts";

export const PROGRESS_FILE = "PROGRESS.json";
export const HANDOFF_FILE = "HANDOFF.md";
export const DECISIONS_FILE = "decisions.log";

/** Entries per PROGRESS.json list, and characters per entry. */
export const PROGRESS_MAX_ITEMS = 50;
export const PROGRESS_ITEM_CHARS = 500;

const items = lazy(() =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1, "entries must not be empty")
        .max(PROGRESS_ITEM_CHARS, `entries must be at most ${PROGRESS_ITEM_CHARS} characters`),
    )
    .max(PROGRESS_MAX_ITEMS, `at most ${PROGRESS_MAX_ITEMS} entries per list`),
);

/** Characters of PROGRESS.json's summary, and of its notes list's entries. */
export const PROGRESS_SUMMARY_CHARS = 1_000;

/** What the handoff passes on beside the four lists: all optional, all bounded. */
const handoffFields = () => ({
  /** Important notes for whoever continues (conventions, pitfalls). */
  notes: items().max(20, "at most 20 notes").optional(),
  /** Where to continue: `path:line` (or a path). */
  continueFrom: z
    .string()
    .trim()
    .regex(/^[^\s:]{1,512}(:\d{1,7})?$/, "give path:line, e.g. src/app.ts:127")
    .optional(),
  /** The agent that should take the work on next. */
  nextAgent: z
    .string()
    .trim()
    .regex(/^[a-z][a-z0-9-]{0,62}$/, "an agent name")
    .optional(),
  /** Where the work stands, in a few sentences (agent_state.json's context summary). */
  summary: z.string().trim().min(1).max(PROGRESS_SUMMARY_CHARS).optional(),
});

/** PROGRESS.json. */
export const progressSchema = lazy(() =>
  z.strictObject({
    accomplished: items(),
    remaining: items(),
    decisions: items(),
    blockers: items(),
    ...handoffFields(),
  }),
);
export type Progress = z.infer<ReturnType<typeof progressSchema>>;

/** An update: any of the lists and fields, each replacing the stored one. */
export const progressUpdateSchema = lazy(() => progressSchema().partial());

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
const readItems = () =>
  z.array(z.string()).transform((items) =>
    items
      .map((item) => item.trim())
      .filter((item) => item !== "")
      .slice(0, PROGRESS_MAX_ITEMS)
      .map((item) =>
        item.length > PROGRESS_ITEM_CHARS ? `${item.slice(0, PROGRESS_ITEM_CHARS - 1)}…` : item,
      ),
  );
/** PROGRESS.json as read: every list and field clipped to its bound. */
const readProgressSchema = lazy(() => {
  const list = readItems();
  return z.strictObject({
    accomplished: list,
    remaining: list,
    decisions: list,
    blockers: list,
    notes: list.transform((items) => items.slice(0, 20)).optional(),
    continueFrom: z
      .string()
      .transform((s) => s.slice(0, 520))
      .optional(),
    nextAgent: z
      .string()
      .transform((s) => s.slice(0, 63))
      .optional(),
    summary: z
      .string()
      .transform((s) => s.slice(0, PROGRESS_SUMMARY_CHARS))
      .optional(),
  });
});

/** PROGRESS.json's text, checked and clipped to the bounds (null text: no file). */
export function parseProgress(text: string | null): {
  progress: Progress | null;
  invalid?: string;
} {
  const { value, invalid } = parseJsonFile<Progress>(readProgressSchema(), text);
  return invalid ? { progress: null, invalid } : { progress: value };
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
