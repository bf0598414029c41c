/**
 * The model-side conversation of a task (Messages API messages), one row per message, in the
 * task object's SQLite. The loop appends; repair happens on read, in the loop.
 */
import type { ChatMessage } from "../loop/chat-message.ts";

/** Append-only conversation rows. */
export class ConversationStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Appends one message. */
  append(message: ChatMessage): void {
    this.#sql.exec(
      "INSERT INTO conversation (role, content_json) VALUES (?, ?)",
      message.role,
      JSON.stringify(message.content),
    );
  }

  /** All messages, oldest first. */
  load(): ChatMessage[] {
    return this.#sql
      .exec<{ role: string; content_json: string }>(
        "SELECT role, content_json FROM conversation ORDER BY idx",
      )
      .toArray()
      .map((row) => ({
        role: row.role as ChatMessage["role"],
        content: JSON.parse(row.content_json) as ChatMessage["content"],
      }));
  }
}
