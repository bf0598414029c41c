/**
 * The console's routes in workerd: the page with its security headers, and its script and
 * stylesheet under content-hashed, immutable URLs.
 */
import { describe, expect, it } from "vitest";
import { CONSOLE_HASH } from "../../src/console/assets.generated.ts";
import { fetchWorker } from "../helpers/a2a.ts";

describe("/console", () => {
  it("serves the page with a strict CSP and hashed asset URLs", async () => {
    const page = await fetchWorker("/console");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const html = await page.text();
    expect(html).toContain(`/console/${CONSOLE_HASH}/console.js`);
    expect(html).toContain('<html lang="en">');
    const js = await fetchWorker(`/console/${CONSOLE_HASH}/console.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await js.text()).toContain("SendStreamingMessage");
    const css = await fetchWorker(`/console/${CONSOLE_HASH}/console.css`);
    expect(await css.text()).toContain("prefers-color-scheme: dark");
    expect((await fetchWorker("/console/", { redirect: "manual" })).status).toBe(308);
  });
});
