/**
 * A task's place in its conversation (the context object): whether it has joined and holds the
 * conversation, how far into the conversation's turns it has read, and how much of its own
 * history it has handed back. One row; synchronous SQL only.
 */

/** `none`: not joined yet; `waiting`: queued behind another task; `active`: holds the conversation; `released`: handed it back. */
export type LinkState = "none" | "waiting" | "active" | "released";

/** The link row. */
export interface ContextLink {
  state: LinkState;
  /** Position in the conversation's turns this task has taken in. */
  contextSeq: number;
  /** History position up to which this task's messages are in its model conversation. */
  conversationUpto: number;
  /** History position up to which this task's messages were handed to the conversation. */
  releasedUpto: number;
}

interface LinkRow {
  state: string;
  context_seq: number;
  conversation_upto: number;
  released_upto: number;
  [key: string]: SqlStorageValue;
}

/** Reads and writes the link row (kept in memory: the object is its only writer). */
export class ContextLinkStore {
  readonly #sql: SqlStorage;
  #link: ContextLink | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    sql.exec("INSERT OR IGNORE INTO context_link (id) VALUES (1)");
  }

  get(): ContextLink {
    if (!this.#link) {
      const row = this.#sql.exec<LinkRow>("SELECT * FROM context_link WHERE id = 1").one();
      this.#link = {
        state: row.state as LinkState,
        contextSeq: row.context_seq,
        conversationUpto: row.conversation_upto,
        releasedUpto: row.released_upto,
      };
    }
    return { ...this.#link };
  }

  patch(changes: Partial<ContextLink>): ContextLink {
    const next = { ...this.get(), ...changes };
    this.#sql.exec(
      "UPDATE context_link SET state = ?, context_seq = ?, conversation_upto = ?, released_upto = ? WHERE id = 1",
      next.state,
      next.contextSeq,
      next.conversationUpto,
      next.releasedUpto,
    );
    this.#link = next;
    return { ...next };
  }
}
