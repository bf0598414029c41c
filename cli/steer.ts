/**
 * Steering a working task from `a2a chat`: while a task's stream runs, each line typed is sent to
 * that task as a live message (the harness's live-messages extension: a send naming the task and
 * listing the extension, answered at once) and reaches the model at its next step; the stream
 * shows it back as the person's line. Lines are read from one shared reader, so a line that
 * arrives as the stream ends is the next prompt's, never lost. A line typed before the task's id
 * is known waits for it; a refused one (the task ended meanwhile, its queue is full) says why.
 */
import { SendMessageRequest } from "@a2a-js/sdk";
import { LIVE_MESSAGES_EXTENSION } from "../src/protocol/extensions.ts";
import { oneLine } from "./errors.ts";
import type { Session } from "./stream.ts";

/** Lines of standard input, read one at a time by whoever asks first. */
export class LineReader {
  readonly #lines: AsyncIterator<string>;
  #pending: Promise<IteratorResult<string>> | null = null;

  constructor(lines: AsyncIterator<string>) {
    this.#lines = lines;
  }

  /** The next line, not yet taken (the same promise until {@link take}). */
  peek(): Promise<IteratorResult<string>> {
    this.#pending ??= this.#lines.next();
    return this.#pending;
  }

  /** Takes the next line: after it, {@link peek} reads the one after. */
  async take(): Promise<IteratorResult<string>> {
    const next = await this.peek();
    this.#pending = null;
    return next;
  }
}

/** Sends `text` to the working task `taskId` as a live message; throws what the agent refused. */
export async function sendLive(
  session: Session,
  target: { taskId: string; contextId: string },
  text: string,
): Promise<void> {
  await session.client.sendMessage(
    SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text }],
        taskId: target.taskId,
        ...(target.contextId ? { contextId: target.contextId } : {}),
        extensions: [LIVE_MESSAGES_EXTENSION],
      },
      configuration: { returnImmediately: true },
    }),
  );
}

/** What steering needs: the reader, the task once known, and where to say what happened. */
export interface Steering {
  lines: LineReader;
  task(): { taskId: string; contextId: string } | null;
  send(target: { taskId: string; contextId: string }, text: string): Promise<void>;
  note(text: string): void;
}

/**
 * Runs until `work` settles, sending each line read meanwhile to the task; returns `work`'s
 * value. Lines that start with `/` are not sent (the prompt's commands wait for the prompt).
 */
export async function steerWhile<T>(work: Promise<T>, steering: Steering): Promise<T> {
  const done = work.then(
    () => "done" as const,
    () => "done" as const,
  );
  for (;;) {
    const next = await Promise.race([steering.lines.peek(), done]);
    if (next === "done" || next.done) break;
    const text = next.value.trim();
    if (text.startsWith("/")) break;
    await steering.lines.take();
    if (text === "") continue;
    // A line typed before the task's id arrived waits for it (or for the stream's end).
    let target = steering.task();
    while (!target) {
      if ((await Promise.race([done, new Promise((r) => setTimeout(r, 50))])) === "done") break;
      target = steering.task();
    }
    if (!target) {
      steering.note(`(not sent: the task ended before it started: ${text})`);
      continue;
    }
    try {
      await steering.send(target, text);
    } catch (error) {
      steering.note(
        `(not sent to task ${target.taskId}: ${oneLine(String(error instanceof Error ? error.message : error))})`,
      );
    }
  }
  return work;
}
