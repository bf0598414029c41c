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

const NO_LINK: ContextLink = {
  state: "none",
  contextSeq: 0,
  conversationUpto: 0,
  releasedUpto: 0,
};

/** Reads and writes the link row (kept in memory: the object is its only writer). */
export class ContextLinkStore {
  readonly #sql: SqlStorage;
  #link: ContextLink | null = null;

  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    this.#sql = sql;
    if (fresh) this.#link = { ...NO_LINK };
  }

  /** Drops the copy (after a rollback): the next read takes it from SQLite. */
  forget(): void {
    this.#link = null;
  }

  get(): ContextLink {
    if (!this.#link) {
      const row = this.#sql.exec<LinkRow>("SELECT * FROM context_link WHERE id = 1").toArray()[0];
      this.#link = row
        ? {
            state: row.state as LinkState,
            contextSeq: row.context_seq,
            conversationUpto: row.conversation_upto,
            releasedUpto: row.released_upto,
          }
        : { ...NO_LINK };
    }
    return { ...this.#link };
  }

  patch(changes: Partial<ContextLink>): ContextLink {
    const next = { ...this.get(), ...changes };
    this.#sql.exec(
      `INSERT INTO context_link (id, state, context_seq, conversation_upto, released_upto)
       VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state,
        context_seq = excluded.context_seq, conversation_upto = excluded.conversation_upto,
        released_upto = excluded.released_upto`,
      next.state,
      next.contextSeq,
      next.conversationUpto,
      next.releasedUpto,
    );
    this.#link = next;
    return { ...next };
  }
}
