/**
 * Live messages (the live-messages extension, protocol/extensions.ts): whether a send asks for
 * one, whether a stream's status message is one (the CLI and the console show it as the person's
 * own line, not as the agent's), and the caps of a task's queue. Pure: no I/O; the CLI and the
 * console import it.
 */
import { LIVE_MESSAGES_EXTENSION } from "./extensions.ts";

/** At most this many live messages wait for a task's next step; one more is refused. */
export const LIVE_QUEUE_MAX = 8;

/** The largest live message: its parts as JSON, in characters. */
export const LIVE_MESSAGE_MAX_CHARS = 32_000;

/** Whether `message` lists the live-messages extension (a send that asks for it, or its echo). */
export function isLiveMessage(
  message: { extensions?: readonly string[] | undefined } | undefined,
): boolean {
  return message?.extensions?.includes(LIVE_MESSAGES_EXTENSION) === true;
}

/** `message` marked as a live message (its `extensions` list the URI once). */
export function asLiveMessage<M extends { extensions?: string[] | undefined }>(message: M): M {
  if (isLiveMessage(message)) return message;
  return { ...message, extensions: [...(message.extensions ?? []), LIVE_MESSAGES_EXTENSION] };
}

/** `message` without the live-messages mark (a follow-up the task takes as any other). */
export function withoutLiveMark<M extends { extensions?: string[] | undefined }>(message: M): M {
  if (!isLiveMessage(message)) return message;
  const extensions = (message.extensions ?? []).filter((uri) => uri !== LIVE_MESSAGES_EXTENSION);
  const { extensions: _dropped, ...rest } = message;
  // The same message, its `extensions` without the URI (left out when that empties it).
  return (extensions.length > 0 ? { ...rest, extensions } : rest) as M;
}
