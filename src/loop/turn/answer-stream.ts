/**
 * Batches a turn's text into artifact chunks: appends are held for up to `flushMs` (or until
 * `maxChars` accumulate) and sent as one chunk, so the event log gets a few writes per second
 * rather than one per token; a replacement flushes what is pending first. Order is preserved.
 */
import type { TextAction } from "./turn-text.ts";

/** Receives batched actions; `shownAfter` is the turn's text clients will have seen. */
export type ChunkSink = (action: TextAction, shownAfter: string) => void;

/** Options of {@link AnswerStream}. */
export interface AnswerStreamOptions {
  flushMs: number;
  maxChars: number;
}

/** Coalesces text actions; see the module header. */
export class AnswerStream {
  readonly #sink: ChunkSink;
  readonly #options: AnswerStreamOptions;
  #pending = "";
  #shown: string;
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** `shown`: the turn's text clients have already seen. */
  constructor(
    sink: ChunkSink,
    shown: string,
    options: AnswerStreamOptions = { flushMs: 40, maxChars: 512 },
  ) {
    this.#sink = sink;
    this.#shown = shown;
    this.#options = options;
  }

  /** Accepts actions from a {@link TurnText}. */
  push(actions: readonly TextAction[]): void {
    for (const action of actions) {
      if (action.kind === "replace") {
        this.flush();
        this.#shown = action.text;
        this.#sink(action, this.#shown);
        continue;
      }
      this.#pending += action.text;
      if (this.#pending.length >= this.#options.maxChars) this.flush();
      else this.#timer ??= setTimeout(() => this.flush(), this.#options.flushMs);
    }
  }

  /** Sends whatever is pending now. */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending === "") return;
    const text = this.#pending;
    this.#pending = "";
    this.#shown += text;
    this.#sink({ kind: "append", text }, this.#shown);
  }

  /** Drops pending text without sending it (the attempt failed; a retry will resend it). */
  discard(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = "";
  }
}
