/**
 * A task's place in its conversation (the context object): whether it has joined and holds the
 * conversation, how far into the conversation's turns it has read, how much of its own history it
 * has handed back, and whether it has the conversation to itself (a conversation the server
 * opened for it, with no object yet: see context-membership.ts). One row; synchronous SQL only.
 */

import { CopyingStore, RowCopy, upsertRow } from "../../store/row-copy.ts";

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
  /**
   * The conversation has no object yet and this task is its only one: it holds it without asking
   * and keeps its turns until a second task's join makes the object, which asks for them.
   */
  alone: boolean;
}

interface LinkRow {
  state: string;
  context_seq: number;
  conversation_upto: number;
  released_upto: number;
  alone: number;
  [key: string]: SqlStorageValue;
}

const NO_LINK: ContextLink = {
  state: "none",
  contextSeq: 0,
  conversationUpto: 0,
  releasedUpto: 0,
  alone: false,
};

/** Reads and writes the link row (kept in memory: the object is its only writer). */
export class ContextLinkStore extends CopyingStore<ContextLink> {
  /** `fresh`: the database is new, so there is nothing to read. */
  constructor(sql: SqlStorage, fresh = false) {
    super(
      sql,
      new RowCopy(
        () => {
          const row = sql.exec<LinkRow>("SELECT * FROM context_link WHERE id = 1").toArray()[0];
          return row
            ? {
                state: row.state as LinkState,
                contextSeq: row.context_seq,
                conversationUpto: row.conversation_upto,
                releasedUpto: row.released_upto,
                alone: row.alone === 1,
              }
            : NO_LINK;
        },
        fresh ? NO_LINK : undefined,
      ),
    );
  }

  get(): ContextLink {
    return { ...this.copy.value };
  }

  patch(changes: Partial<ContextLink>): ContextLink {
    const next = { ...this.get(), ...changes };
    upsertRow(this.sql, "context_link", ["id"], {
      id: 1,
      state: next.state,
      context_seq: next.contextSeq,
      conversation_upto: next.conversationUpto,
      released_upto: next.releasedUpto,
      alone: next.alone ? 1 : 0,
    });
    this.copy.set(next);
    return { ...next };
  }
}
