/**
 * The console's routes in workerd: the page with its security headers (a strict CSP with Trusted
 * Types), and its bundled script and stylesheet under content-hashed, immutable URLs.
 */
import { describe, expect, it } from "vitest";
import { CONSOLE_HASH } from "../../src/console/assets.generated.ts";
import { fetchWorker } from "../helpers/a2a.ts";

describe("/console", () => {
  it("serves the page with a strict CSP and hashed asset URLs", async () => {
    const page = await fetchWorker("/console");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    // HTML reaches the DOM only through the console's Markdown renderer.
    expect(csp).toContain("require-trusted-types-for 'script'; trusted-types console-markdown");
    expect(csp).not.toContain("unsafe");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const html = await page.text();
    expect(html).toContain(`/console/${CONSOLE_HASH}/console.js`);
    expect(html).toContain('<html lang="en">');
    const js = await fetchWorker(`/console/${CONSOLE_HASH}/console.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const script = await js.text();
    expect(script).toContain("SendStreamingMessage");
    // One bundle: the modules and markdown-it (its licence kept), no imports left to fetch.
    expect(script).toContain("console-markdown");
    expect(script).toMatch(/markdown-it/i);
    expect(script).not.toMatch(/^\s*import\s/m);
    const css = await fetchWorker(`/console/${CONSOLE_HASH}/console.css`);
    const styles = await css.text();
    expect(styles).toMatch(/prefers-color-scheme:\s*dark/);
    expect(styles).toContain(".markdown");
    expect(styles).not.toMatch(/@import/);
    expect((await fetchWorker("/console/", { redirect: "manual" })).status).toBe(308);
  });
});
