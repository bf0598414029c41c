/**
 * How a task addresses and joins its conversation: the key of the conversation's object
 * (context-object.ts), the shapes of a join, a release and a handover, and how a conversation the
 * server opened names its first task (so the object, made only when a second task joins, can ask
 * that task for its turns). Imports nothing above context/.
 */
import { requireConcreteOwner } from "../auth/anonymous.ts";
import type { ChatMessage } from "../loop/chat-message.ts";

/** A join: the task, its position in the conversation's turns, the conversation's key. */
export interface JoinInput {
  taskId: string;
  after: number;
  /** The conversation's key; with it, a new object asks the conversation's first task (if any) for its turns. */
  key?: string;
}

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

/**
 * What a conversation's first task hands its new object: whether it still holds the conversation
 * (it is working: the object queues it first), and the turns it has had so far, up to its history
 * position `upto` (applied like a release: once). `found: false`: no such task in this conversation.
 */
export type Handover =
  | { found: false }
  | { found: true; held: boolean; upto: number; turns: ChatMessage[] };

/** The key of a conversation's object. */
export function contextKey(owner: string, agent: string, contextId: string): string {
  return JSON.stringify([requireConcreteOwner(owner), agent, contextId]);
}

/** The contextId the server gives a conversation it opens for the task `taskId`: its id in hex. */
export function contextIdFor(taskId: string): string {
  return taskId.replaceAll("-", "").toLowerCase();
}

/** The task the server opened the conversation `contextId` for, when its form says there may be one. */
export function firstTaskOf(contextId: string): string | null {
  if (!/^[0-9a-f]{32}$/.test(contextId)) return null;
  const h = contextId;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
