/**
 * An answer a hostile model (or a prompt injection) could write: script tags, event-handler
 * attributes, javascript:/data:/vbscript: links in every spelling, raw HTML, images that would
 * call out, next to ordinary Markdown. `inertAnswer` (an answer) and `inertMarkdown` (any element
 * it is rendered into: a file's preview) check the console shows it as text: no script ran,
 * nothing outside the renderer's allowlist is in the DOM, every link is http(s).
 */
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";

export const HOSTILE_MARKDOWN = [
  "# Report",
  "",
  "**Bold**, `code` and a [safe link](https://example.com/docs).",
  "",
  '<script>window.__pwned = "script"</script>',
  "<img src=x onerror=\"window.__pwned = 'img'\">",
  "<a href=\"javascript:window.__pwned='raw-a'\">raw link</a>",
  "<iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
  "<svg onload=\"window.__pwned='svg'\"></svg>",
  '<p style="background:url(https://tracker.example/css)" onclick="window.__pwned=\'p\'">styled</p>',
  "",
  "[js link](javascript:window.__pwned='md-link')",
  "[upper link](JAVASCRIPT:window.__pwned='md-upper')",
  "[entity link](jav&#x61;script:window.__pwned='entity')",
  "[spaced link]( javascript:window.__pwned='spaced')",
  "[data link](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0nZGF0YSc8L3NjcmlwdD4=)",
  "[vb link](vbscript:msgbox)",
  "[relative link](/api/admin/users)",
  "<javascript:window.__pwned='autolink'>",
  "![pixel](https://tracker.example/pixel.png)",
  "![data image](data:image/png;base64,iVBORw0KGgo=)",
  "",
  "| a | b |",
  "|---|--:|",
  "| 1 | 2 |",
  "",
  "- one",
  "- two",
  "",
  "```html",
  '<script>window.__pwned = "code"</script>',
  "```",
].join("\n");

const ALLOWED = new Set([
  "P",
  "BR",
  "HR",
  "H3",
  "H4",
  "H5",
  "H6",
  "UL",
  "OL",
  "LI",
  "BLOCKQUOTE",
  "PRE",
  "CODE",
  "EM",
  "STRONG",
  "S",
  "A",
  "TABLE",
  "THEAD",
  "TBODY",
  "TR",
  "TH",
  "TD",
]);

/** Asserts the turn's answer is the payload rendered safely. */
export async function inertAnswer(page: Page, turn: Locator): Promise<void> {
  await inertMarkdown(page, turn.locator(".answer"));
}

/**
 * Asserts `answer`, an element the console rendered the payload into (an answer, a file's
 * preview, a handoff), shows it safely.
 */
export async function inertMarkdown(page: Page, answer: Locator): Promise<void> {
  await expect.poll(() => answer.locator("h3").count()).toBe(1);
  const dom = await answer.evaluate((root) => ({
    tags: Array.from(root.querySelectorAll("*")).map((e) => e.tagName),
    attributes: Array.from(root.querySelectorAll("*")).flatMap((e) =>
      Array.from(e.attributes).map((a) => `${a.name}=${a.value}`),
    ),
    links: Array.from(root.querySelectorAll("a")).map((a) => ({
      href: a.getAttribute("href"),
      rel: a.getAttribute("rel"),
      target: a.getAttribute("target"),
      text: a.textContent,
    })),
    text: root.textContent ?? "",
  }));
  expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
  for (const tag of dom.tags) expect(ALLOWED.has(tag), tag).toBe(true);
  for (const attribute of dom.attributes) {
    expect(attribute).not.toMatch(/^on/i);
    expect(attribute).not.toMatch(/^style=/i);
    expect(attribute).not.toMatch(/javascript:|data:|vbscript:/i);
  }
  // Links: only http(s), opened apart from the console; an image is a link, never fetched.
  const link = (href: string, text: string) => ({
    href,
    rel: "noopener noreferrer nofollow",
    target: "_blank",
    text,
  });
  expect(dom.links).toEqual([
    link("https://example.com/docs", "safe link"),
    link("https://tracker.example/css", "https://tracker.example/css"),
    link("https://tracker.example/pixel.png", "pixel"),
  ]);
  // Everything else is shown as the text it is.
  for (const shown of [
    '<script>window.__pwned = "script"</script>',
    "<img src=x onerror=",
    "<iframe src=",
    "[js link](javascript:",
    "[data link](data:text/html",
    "![data image](data:image/png",
    "[relative link](/api/admin/users)",
  ])
    expect(dom.text).toContain(shown);
  expect(await answer.locator("strong").first().textContent()).toBe("Bold");
  expect(await answer.locator("td.align-right").textContent()).toBe("2");
  expect(await answer.locator("li").allTextContents()).toEqual(["one", "two"]);
  expect(await answer.locator("pre code.language-html").textContent()).toContain("<script>");
}
