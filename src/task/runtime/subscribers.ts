/**
 * Live streams of one task's events, as newline-delimited JSON byte streams (what a Durable
 * Object can hand to the Worker over RPC). Opening a stream writes its backlog and registers it
 * in one synchronous step, so no event falls between backlog and live delivery. A stream closes
 * when the task settles or the reader goes away.
 */
import type { SequencedEvent } from "../../protocol/wire.ts";
import { encodeLine } from "./ndjson.ts";

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  closed: boolean;
}

/** The set of open streams. */
export class Subscribers {
  readonly #open = new Set<Subscriber>();

  /** Number of open streams. */
  get size(): number {
    return this.#open.size;
  }

  /** Opens a stream that starts with `backlog`; `closeNow` ends it right after (settled task). */
  open(backlog: readonly SequencedEvent[], closeNow: boolean): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const subscriber: Subscriber = { writer: writable.getWriter(), closed: false };
    for (const entry of backlog) this.#write(subscriber, entry);
    if (closeNow) this.#close(subscriber);
    else this.#open.add(subscriber);
    return readable;
  }

  /** Sends an event to every open stream. */
  broadcast(entry: SequencedEvent): void {
    for (const subscriber of this.#open) this.#write(subscriber, entry);
  }

  /** Ends every open stream (after the task settled). */
  closeAll(): void {
    for (const subscriber of this.#open) this.#close(subscriber);
  }

  #write(subscriber: Subscriber, entry: SequencedEvent): void {
    if (subscriber.closed) return;
    subscriber.writer.write(encodeLine(entry)).catch(() => this.#drop(subscriber));
  }

  #close(subscriber: Subscriber): void {
    if (subscriber.closed) return;
    subscriber.closed = true;
    this.#open.delete(subscriber);
    subscriber.writer.close().catch(() => {});
  }

  #drop(subscriber: Subscriber): void {
    subscriber.closed = true;
    this.#open.delete(subscriber);
    subscriber.writer.abort().catch(() => {});
  }
}
