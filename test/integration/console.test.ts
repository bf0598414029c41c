/**
 * The console's routes in workerd: the page with its security headers (a strict CSP with Trusted
 * Types; images only from itself and the origins of the agents' https icons) naming its script
 * and stylesheet by content-hashed URLs (static assets: test/e2e/console.test.ts fetches them),
 * `GET /` linking to it, and what `/agents` tells it of each agent (icon, starter prompts).
 */
import { describe, expect, it } from "vitest";
import { CONSOLE_HASH } from "../../src/console/assets.generated.ts";
import { iconOrigins } from "../../src/console/routes.ts";
import { fetchWorker } from "../helpers/a2a.ts";
import { newUser } from "../helpers/as-user.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const cspOf = async () => (await fetchWorker("/console")).headers.get("content-security-policy");

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
    expect(html).toContain(`/console/${CONSOLE_HASH}/console.css`);
    expect(html).toContain('<html lang="en">');
    expect((await fetchWorker("/console/", { redirect: "manual" })).status).toBe(308);
  });

  it("links the console from GET /: in the JSON index, and a browser is sent there", async () => {
    const index = (await (await fetchWorker("/")).json()) as { console?: string };
    expect(index.console).toMatch(/^https?:\/\/[^/]+\/console$/);
    const browser = await fetchWorker("/", {
      headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
      redirect: "manual",
    });
    expect(browser.status).toBe(303);
    expect(browser.headers.get("location")).toBe(index.console);
  });

  it("lists each agent's icon and starter prompts in /agents, for the console", async () => {
    const body = (await (await fetchWorker("/agents")).json()) as {
      agents: Array<{ name: string; icon?: string; starters: string[] }>;
    };
    const assistant = body.agents.find((a) => a.name === "assistant");
    expect(assistant?.icon).toBe("🧭");
    expect(assistant?.starters).toHaveLength(4);
    expect(assistant?.starters[0]).toMatch(/^Plan and carry out a small project/);
  });

  it("lets in the images of the agents' https icons' origins, and no other", async () => {
    expect(await cspOf()).toContain("img-src 'self' data:;");
    const admin = await newUser("admin");
    const put = (name: string, icon: string) =>
      putIdentity(
        name,
        `---\nname: ${name}\ndescription: An icon test.\nicon: "${icon}"\n---\nHello.`,
        admin.token,
      );
    const remove = (name: string) => deleteIdentity(name, admin.token);
    try {
      expect((await put("iconic", "https://Icons.Example.com:8443/bot.png?v=1")).status).toBe(200);
      // A host may hold ";" or "*" after URL parsing: such an origin is never written.
      expect((await put("sneaky", "https://a;script-src*.x/i.png")).status).toBe(200);
      const csp = await cspOf();
      expect(csp).toContain("img-src 'self' data: https://icons.example.com:8443;");
      expect(csp).not.toContain("script-src*");
      expect(csp?.match(/script-src [^;]*/)?.[0]).toBe("script-src 'self'");
    } finally {
      await remove("iconic");
      await remove("sneaky");
    }
    expect(await cspOf()).toContain("img-src 'self' data:;");
  });

  it("keeps only plain https origins of icons", () => {
    expect(
      iconOrigins([
        null,
        "🧭",
        "https://b.example/x.png",
        "https://a.example/1.png",
        "https://a.example/2.png",
        "http://plain.example/x.png",
        "https://[::1]/x.png",
        "https://a b/",
        "https://x.example;img-src*/y",
      ]),
    ).toEqual(["https://a.example", "https://b.example"]);
  });
});
