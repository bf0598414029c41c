/**
 * The model-side conversation of a task (Messages API messages), one row per message, in the
 * task object's SQLite. Rows that came from the task's conversation (context) carry their turn
 * number there. The loop appends; compaction replaces a prefix with a summary; repair happens on
 * read, in the loop. The task's environment note is not written into its row: the store puts it
 * in front of that row's content on read (`note`, from the task's hook state). A row long enough
 * to grow with an answer is stored in pieces (store/long-values.ts).
 */
import type { ChatMessage } from "../../loop/chat-message.ts";
import { withEnvironmentNote } from "../../loop/prompt/user-content.ts";
import { storedJson } from "../../platform/stored-json.ts";
import { LongValues } from "../../store/long-values.ts";
import { CopyingStore, RowCopy } from "../../store/row-copy.ts";

/** A stored message with its position, and its context turn number when it came from there. */
export interface ConversationRow {
  idx: number;
  contextSeq: number | null;
  message: ChatMessage;
}

/** A text shown in front of the row at `idx` (the environment note). */
export type RowNote = { idx: number; text: string } | undefined;

/** The key of a row's long content (store/long-values.ts). */
const ROW_PREFIX = "conversation:";
const rowKey = (idx: number) => `${ROW_PREFIX}${idx}`;

/** The conversation rows, with an in-memory copy (the object is their only writer). */
export class ConversationStore extends CopyingStore<ConversationRow[]> {
  readonly #note: () => RowNote;
  readonly #long: LongValues;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false, note: () => RowNote = () => undefined) {
    const long = new LongValues(sql);
    super(sql, new RowCopy(() => readRows(sql, long), fresh ? [] : undefined));
    this.#note = note;
    this.#long = long;
  }

  /** Appends one message (`contextSeq` when it is a turn taken from the conversation). */
  append(message: ChatMessage, contextSeq: number | null = null): void {
    const rows = this.#all();
    const idx = (rows.at(-1)?.idx ?? 0) + 1;
    this.sql.exec(
      "INSERT INTO conversation (idx, role, content_json, context_seq) VALUES (?, ?, ?, ?)",
      idx,
      message.role,
      this.#long.put(rowKey(idx), JSON.stringify(message.content)),
      contextSeq,
    );
    rows.push({ idx, contextSeq, message });
  }

  /** All rows, oldest first, the note in front of its row. */
  rows(): ConversationRow[] {
    const note = this.#note();
    return this.#all().map((r) =>
      r.idx === note?.idx
        ? {
            ...r,
            message: { ...r.message, content: withEnvironmentNote(r.message.content, note.text) },
          }
        : r,
    );
  }

  /** All messages, oldest first, the note in front of its row. */
  load(): ChatMessage[] {
    return this.rows().map((r) => r.message);
  }

  /** Replaces every row before position `keepFrom` with `summary`. */
  replacePrefix(keepFrom: number, summary: ChatMessage): void {
    this.#long.drop(
      "SELECT ? || idx FROM conversation WHERE idx < ? AND content_json = ''",
      ROW_PREFIX,
      keepFrom,
    );
    this.sql.exec("DELETE FROM conversation WHERE idx < ?", keepFrom);
    this.sql.exec(
      "INSERT INTO conversation (idx, role, content_json) VALUES (?, ?, ?)",
      keepFrom - 1,
      summary.role,
      this.#long.put(rowKey(keepFrom - 1), JSON.stringify(summary.content)),
    );
    this.copy.set([
      { idx: keepFrom - 1, contextSeq: null, message: summary },
      ...this.#all().filter((r) => r.idx >= keepFrom),
    ]);
  }

  #all(): ConversationRow[] {
    return this.copy.value;
  }
}

function readRows(sql: SqlStorage, long: LongValues): ConversationRow[] {
  return sql
    .exec<{ idx: number; role: string; content_json: string; context_seq: number | null }>(
      "SELECT idx, role, content_json, context_seq FROM conversation ORDER BY idx",
    )
    .toArray()
    .map((row) => ({
      idx: row.idx,
      contextSeq: row.context_seq,
      message: {
        role: row.role as ChatMessage["role"],
        content: storedJson<ChatMessage["content"]>(long.get(rowKey(row.idx), row.content_json)),
      },
    }));
}
