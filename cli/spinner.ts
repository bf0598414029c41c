/**
 * A progress line on the terminal while the CLI waits for the agent: a spinner, the task's state
 * and the seconds waited, on stderr, only when stderr is a terminal and only while the cursor is
 * at the start of a line (streamed text is never overwritten).
 */

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The spinner; `resume` after each output, `pause` before writing. */
export class Spinner {
  readonly #allowed: () => boolean;
  readonly #enabled = process.stderr.isTTY === true;
  #timer: ReturnType<typeof setInterval> | null = null;
  #frame = 0;
  #since = Date.now();
  #label = "";
  #shown = false;

  constructor(allowed: () => boolean) {
    this.#allowed = allowed;
  }

  /** Shows the spinner (after a pause) with `label`. */
  resume(label: string): void {
    this.#label = label;
    if (!this.#enabled || this.#timer) return;
    this.#since = Date.now();
    this.#timer = setInterval(() => this.#draw(), 120);
  }

  /** Hides it until the next resume. */
  pause(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#clear();
  }

  stop(): void {
    this.pause();
  }

  #draw(): void {
    if (!this.#allowed()) return;
    this.#frame = (this.#frame + 1) % FRAMES.length;
    const seconds = ((Date.now() - this.#since) / 1000).toFixed(1);
    process.stderr.write(`\r${FRAMES[this.#frame]} ${this.#label || "waiting"} ${seconds}s\x1b[K`);
    this.#shown = true;
  }

  #clear(): void {
    if (this.#shown) process.stderr.write("\r\x1b[K");
    this.#shown = false;
  }
}
