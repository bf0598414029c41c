/**
 * How a task addresses and joins its conversation: the key of the conversation's object
 * (context-object.ts) and the shapes of a join and a release. Imports nothing above context/.
 */
import { requireConcreteOwner } from "../auth/anonymous.ts";
import type { ChatMessage } from "../loop/chat-message.ts";

/** What a task learns when it joins. */
export interface JoinResult {
  /** True when the task holds the conversation now; false when it waits for its turn. */
  active: boolean;
  /** Turns added after the task's last known position, with their numbers (only when active). */
  history: Array<{ seq: number; message: ChatMessage }>;
  /** The position after those turns. */
  seq: number;
}

/** A task's release: its turns since its last release, up to its history position `upto`. */
export interface ReleaseInput {
  taskId: string;
  upto: number;
  turns: ChatMessage[];
  /** The task compacted the conversation's turns up to `through` into this note. */
  summary?: { through: number; message: ChatMessage };
}

/** The key of a conversation's object. */
export function contextKey(owner: string, agent: string, contextId: string): string {
  return JSON.stringify([requireConcreteOwner(owner), agent, contextId]);
}
