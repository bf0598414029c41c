/**
 * Keeps a retried model turn from repeating text the client already saw. `shown` is what was
 * streamed for this turn before the cut-off; as the new attempt's text arrives, nothing is sent
 * while it repeats `shown`, only the extension is sent once it goes past, and if it diverges the
 * turn's text is sent whole as a replacement (A2A `append: false`). Each delta is compared once,
 * against the part of `shown` it stands beside, and never again: the work of a turn is linear in
 * its length (a replacement sends the text so far, once). Pure: no I/O, no clock.
 */

/** What to send for the turn's text. */
export type TextAction = { kind: "append"; text: string } | { kind: "replace"; text: string };

/** Tracks one attempt of one turn. */
export class TurnText {
  #shown: string;
  #received = "";
  /** Whether clients have seen exactly what this attempt received (every delta is then new). */
  #inStep = false;

  /** `shown`: text of this turn that clients have already seen. */
  constructor(shown = "") {
    this.#shown = shown;
    this.#inStep = shown === "";
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
    const at = this.#received.length;
    this.#received += delta;
    if (this.#inStep) {
      this.#shown = this.#received;
      return [{ kind: "append", text: delta }];
    }
    // Still replaying `shown`: this delta stands beside shown[at, at + delta.length).
    const shown = this.#shown;
    const overlap = Math.min(delta.length, shown.length - at);
    const repeats = shown.startsWith(
      overlap === delta.length ? delta : delta.slice(0, overlap),
      at,
    );
    if (!repeats || at + delta.length >= shown.length) {
      this.#shown = this.#received;
      this.#inStep = true;
    }
    if (!repeats) return [{ kind: "replace", text: this.#received }];
    return overlap < delta.length ? [{ kind: "append", text: delta.slice(overlap) }] : [];
  }

  /** Call when the attempt ended normally: fixes up a shorter retry. */
  finish(): TextAction[] {
    if (this.#inStep) return [];
    this.#shown = this.#received;
    this.#inStep = true;
    return [{ kind: "replace", text: this.#received }];
  }
}
