/**
 * The server's /health while a benchmark loads it: asked every 100 ms until stopped, the slowest
 * answer kept. For the benches that show the server keeps answering while one request computes
 * (long answers, run_code's guard).
 */

/** Asks `${base}/health` every 100 ms until stopped; the slowest answer (ms). */
export function watchHealth(base: string): { stop(): Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const start = performance.now();
      await (await fetch(`${base}/health`)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - start);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return slowest;
    },
  };
}
