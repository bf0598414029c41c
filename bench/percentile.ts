/** Percentiles of the benchmarks' samples. Pure. */

/** The `p`-th percentile of `samples` (nearest rank; NaN when there are none). */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
