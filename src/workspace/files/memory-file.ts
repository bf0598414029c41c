/**
 * A user's memory with one agent (`agents/<agent>/users/<owner>/memory/CONTEXT.md`), kept by that
 * agent's workspace object for the owner, the file's only writer: the text lives in the object's
 * SQLite (and in memory while the object lives), so a turn's prompt reads it without R2; R2 keeps
 * the copy that privacy export and erasure see. A memory the object has not seen yet (one
 * written before objects kept it) is read from R2 once; an owner the task knows to be new (a
 * conversation the server just opened for an anonymous caller) has none, recorded without a read.
 */
import { MEMORY_MAX_CHARS } from "../../store/shared-memory.ts";
import type { MemoryMode, WsResult } from "../types.ts";
import type { Manifest } from "./manifest.ts";

/** The file after writing `content` with `mode` over `before`, or why it cannot be written. */
export function composeMemory(
  before: string | null,
  content: string,
  mode: MemoryMode,
): WsResult<string> {
  const base = mode === "append" ? (before ?? "") : "";
  const next = base ? `${base.trimEnd()}\n\n${content.trim()}\n` : `${content.trim()}\n`;
  if (next.length > MEMORY_MAX_CHARS)
    return {
      ok: false,
      error: `CONTEXT.md would grow to ${next.length} characters (limit ${MEMORY_MAX_CHARS}). Rewrite it shorter with mode "replace".`,
    };
  return { ok: true, value: next };
}

/** The memory file of one workspace object's agent and owner. */
export class MemoryFile {
  readonly #sql: SqlStorage;
  readonly #bucket: R2Bucket;
  readonly #key: string;
  /** Where "this owner has no memory" is noted (meta `memory`: `none`). */
  readonly #meta: Pick<Manifest, "meta" | "noteMeta">;
  /** The text as stored (null: no file); undefined until read. */
  #text: string | null | undefined;

  constructor(
    sql: SqlStorage,
    bucket: R2Bucket,
    key: string,
    meta: Pick<Manifest, "meta" | "noteMeta">,
  ) {
    this.#sql = sql;
    this.#bucket = bucket;
    this.#key = key;
    this.#meta = meta;
  }

  /** The file's text, or null. */
  async read(): Promise<string | null> {
    if (this.#text !== undefined) return this.#text;
    const row = this.#sql.exec<{ text: string | null }>("SELECT text FROM memory").toArray()[0];
    if (row) {
      this.#text = row.text;
      return row.text;
    }
    if (this.#meta.meta("memory") === "none") {
      this.#text = null;
      return null;
    }
    const object = await this.#bucket.get(this.#key);
    const text = object ? await object.text() : null;
    this.#store(text);
    return text;
  }

  /**
   * Records that there is no file without asking R2 (an owner known to be new): noted in the
   * object's meta, written with its next change (the task's end note writes one).
   */
  noteNew(): void {
    if (this.#text === undefined) this.#meta.noteMeta({ memory: "none" });
  }

  /** Writes `content` (appended, or replacing the file); returns the new length. */
  async write(content: string, mode: MemoryMode): Promise<WsResult<{ chars: number }>> {
    const next = composeMemory(await this.read(), content, mode);
    if (!next.ok) return next;
    await this.#bucket.put(this.#key, next.value, {
      httpMetadata: { contentType: "text/markdown; charset=utf-8" },
    });
    this.#store(next.value);
    return { ok: true, value: { chars: next.value.length } };
  }

  #store(text: string | null): void {
    this.#sql.exec(
      "INSERT INTO memory (id, text) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET text = excluded.text",
      text,
    );
    this.#text = text;
  }
}
