/**
 * `npm run bench:html`: how long web_fetch's HTML-to-text conversion (src/tools/web/html-text.ts)
 * takes on large and hostile pages (test/fixtures/hostile-html.ts), in Node, at each of `--sizes`
 * (thousands of characters, default 500,2000): the best of `--n` runs (default 5) per page and
 * size, milliseconds per MB (flat across sizes when the conversion is linear), the ratio of the
 * largest size's time per MB to the smallest's, and the characters the scans examined per input
 * character (the figure the linearity test holds, independent of the machine).
 */
import { parseArgs } from "node:util";
import { htmlToText } from "../src/tools/web/html-text.ts";
import { HOSTILE_PAGES } from "../test/fixtures/hostile-html.ts";

const { values } = parseArgs({
  options: { sizes: { type: "string", default: "500,2000" }, n: { type: "string", default: "5" } },
});
const sizes = (values.sizes ?? "").split(",").map((k) => Number(k) * 1000);
const runs = Number(values.n);

/** The best wall time of `runs` conversions of `html`, and the work of one. */
function measure(html: string): { ms: number; perChar: number } {
  let best = Number.POSITIVE_INFINITY;
  const work = { chars: 0 };
  for (let i = 0; i < runs; i++) {
    work.chars = 0;
    const started = performance.now();
    htmlToText(html, work);
    best = Math.min(best, performance.now() - started);
  }
  return { ms: best, perChar: work.chars / html.length };
}

console.log(`htmlToText, best of ${runs} runs, sizes ${sizes.map((s) => s / 1000).join(", ")} K`);
console.log("| page | ms per MB at each size | largest / smallest | chars examined per char |");
console.log("| --- | --- | --- | --- |");
for (const [name, page] of Object.entries(HOSTILE_PAGES)) {
  const rows = sizes.map((size) => {
    const html = page(size);
    return { ...measure(html), mb: html.length / 1e6 };
  });
  const perMb = rows.map((r) => r.ms / r.mb);
  const ratio = (perMb.at(-1) ?? 0) / (perMb[0] ?? 1);
  console.log(
    `| ${name} | ${perMb.map((m) => m.toFixed(1)).join(", ")} | ${ratio.toFixed(2)} | ${rows
      .map((r) => r.perChar.toFixed(2))
      .join(", ")} |`,
  );
}
