import { it } from "vitest";
import { htmlToText } from "../../src/tools/html-text.ts";
it("perf", async () => {
  const block = '<div class="x"><h2>Title &amp; more</h2><p>Some <a href="https://e.com/a">link</a> text with <b>bold</b> and <i>italics</i>.</p><ul><li>one</li><li>two</li></ul><script>var a=1;</script></div>\n';
  const html = `<html><head><title>t</title></head><body>${block.repeat(Math.floor(2_000_000 / block.length))}</body></html>`;
  const t = performance.now();
  const r = await htmlToText(html);
  const t2 = Date.now();
  console.log("bytes", html.length, "chars out", r.text.length, "ms", performance.now() - t);
});
