/**
 * An agent's shared memory (`agents/<agent>/shared/CONTEXT.md`, written by admins) as a task's
 * prompt reads it: from a per-isolate copy, so a turn never waits for R2 once the isolate has
 * read it. A copy older than {@link SHARED_MEMORY_REFRESH_MS} is served and refreshed in the
 * background (one refresh at a time), so an admin's change reaches every isolate within that time
 * plus one turn; the isolate that writes it sees it at once ({@link rememberSharedMemory}).
 */
import { unawaitedWork } from "../platform/ledger.ts";
import { sharedKey } from "./r2-keys.ts";

/** How old a copy may be before a read also refreshes it. */
export const SHARED_MEMORY_REFRESH_MS = 10_000;

/** Largest CONTEXT.md kept (shared or a user's). */
export const MEMORY_MAX_CHARS = 32_000;

interface Copy {
  text: string | null;
  at: number;
  refreshing: Promise<void> | null;
}

const copies = new Map<string, Copy>();

/** The R2 key of `agent`'s shared CONTEXT.md. */
export const sharedMemoryKey = (agent: string): string => sharedKey(agent, "CONTEXT.md");

async function fetchText(files: R2Bucket, agent: string): Promise<string | null> {
  const object = await files.get(sharedMemoryKey(agent));
  return object ? object.text() : null;
}

/**
 * `agent`'s shared memory (null when there is none). The first read in an isolate waits for R2;
 * later ones answer from the copy, and `background` keeps a due refresh alive.
 */
export async function sharedMemory(
  files: R2Bucket,
  agent: string,
  background: (work: Promise<void>) => void,
): Promise<string | null> {
  const copy = copies.get(agent);
  if (!copy) {
    const text = await fetchText(files, agent);
    copies.set(agent, { text, at: Date.now(), refreshing: null });
    return text;
  }
  if (Date.now() - copy.at >= SHARED_MEMORY_REFRESH_MS && !copy.refreshing) {
    copy.refreshing = unawaitedWork(() => fetchText(files, agent))
      .then((text) => {
        copies.set(agent, { text, at: Date.now(), refreshing: null });
      })
      .catch(() => {
        copy.refreshing = null;
      });
    background(copy.refreshing);
  }
  return copy.text;
}

/** Writes `agent`'s shared memory and this isolate's copy of it. */
export async function writeSharedMemory(files: R2Bucket, agent: string, text: string) {
  await files.put(sharedMemoryKey(agent), text, {
    httpMetadata: { contentType: "text/markdown; charset=utf-8" },
  });
  copies.set(agent, { text, at: Date.now(), refreshing: null });
}
