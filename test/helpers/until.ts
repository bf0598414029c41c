/** Polling for tests: wait for a condition instead of sleeping a guessed time. */

/** Polls `read` until `done` holds for its value, or fails after `timeoutMs`. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  // Generous: it returns as soon as the condition holds; only a failing test waits this long.
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `condition not met in ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}
