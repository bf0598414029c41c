/**
 * Keeps a retried model turn from repeating text the client already saw. `shown` is what was
 * streamed for this turn before the cut-off; as the new attempt's text arrives, nothing is sent
 * while it repeats `shown`, only the extension is sent once it goes past, and if it diverges the
 * turn's text is sent whole as a replacement (A2A `append: false`). Pure: no I/O, no clock.
 */

/** What to send for the turn's text. */
export type TextAction = { kind: "append"; text: string } | { kind: "replace"; text: string };

/** Tracks one attempt of one turn. */
export class TurnText {
  #shown: string;
  #received = "";

  /** `shown`: text of this turn that clients have already seen. */
  constructor(shown = "") {
    this.#shown = shown;
  }

  /** Text clients have seen for this turn. */
  get shown(): string {
    return this.#shown;
  }

  /** Text this attempt produced so far. */
  get received(): string {
    return this.#received;
  }

  /** Feeds a delta; returns what to send (possibly nothing). */
  push(delta: string): TextAction[] {
    if (delta === "") return [];
    this.#received += delta;
    const shown = this.#shown;
    const received = this.#received;
    if (received.length <= shown.length) {
      if (shown.startsWith(received)) return [];
      this.#shown = received;
      return [{ kind: "replace", text: received }];
    }
    this.#shown = received;
    if (received.startsWith(shown)) return [{ kind: "append", text: received.slice(shown.length) }];
    return [{ kind: "replace", text: received }];
  }

  /** Call when the attempt ended normally: fixes up a shorter retry. */
  finish(): TextAction[] {
    if (this.#shown === this.#received) return [];
    this.#shown = this.#received;
    return [{ kind: "replace", text: this.#received }];
  }
}
