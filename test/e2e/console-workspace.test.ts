/**
 * The console and the workspace, in headless Chromium against `npm run dev` as a newcomer runs it
 * (no key: the scripted local model; open to anonymous callers): files attached in the composer
 * (the paperclip and a drop) go out as A2A file parts of the message; the Files tab browses the
 * conversation's workspace, previews text, Markdown and images, downloads, uploads (a button and a
 * drop) and deletes, and refuses to delete a state file; the State tab shows PROGRESS.json, the
 * features, HANDOFF.md, the checkpoints and the change history; the Raw tab shows every request
 * and its answer as JSON; conversations are renamed and searched. Hostile file names and contents
 * stay inert. Also the README's screenshot (docs/console.png) from docs/dev-loop.md's prompts.
 * Screenshots go to test-results/console/.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedAgents } from "./agent-set.ts";
import { launchChromium, openPage, transcriptOf } from "./browser.ts";
import { type DevServer, freePort, startDevServer } from "./dev-server.ts";
import { HOSTILE_MARKDOWN, inertMarkdown } from "./hostile-markdown.ts";
import { ROOT } from "./processes.ts";

const shots = join(ROOT, "test-results", "console");
/** An agent uploaded for the test (every tool), so the suite holds for any set of agents. */
const AGENT = "keeper";
/** A 1x1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1">.md';

let server: DevServer;
let admin: string;
let browser: Browser;
let page: Page;
const errors: string[] = [];
let contextId = "";

const text = (selector: string) => page.locator(selector).first().textContent();
/** `expect.poll` with the e2e config's room for a loaded machine (a model round trip, a page load). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read);
const pwned = () => page.evaluate(() => (window as { __pwned?: unknown }).__pwned);

/** Sends `message` from the composer and waits for its task to end. */
async function send(message: string): Promise<void> {
  const done = await page.locator(".agent-turn .status.state-completed").count();
  await page.fill("#prompt", message);
  await page.press("#prompt", "Enter");
  await expect
    .poll(() => page.locator(".agent-turn .status.state-completed").count())
    .toBeGreaterThan(done);
}

/** Puts a file in the open conversation's workspace through the files API (as the page's caller). */
async function put(path: string, body: string | Uint8Array): Promise<void> {
  const url = `${server.url}/api/workspaces/${AGENT}/files/${path.split("/").map(encodeURIComponent).join("/")}?contextId=${contextId}`;
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : new Uint8Array(body);
  const response = await fetch(url, { method: "PUT", body: bytes });
  expect([200, 201]).toContain(response.status);
}

/** Drops files on `selector` as a person would (a drop event carrying them). */
async function drop(selector: string, files: Array<{ name: string; type: string; text: string }>) {
  await page.evaluate(
    ({ selector, files }) => {
      const transfer = new DataTransfer();
      for (const f of files) transfer.items.add(new File([f.text], f.name, { type: f.type }));
      const target = document.querySelector(selector) as Element;
      target.dispatchEvent(
        new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
      target.dispatchEvent(
        new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
    },
    { selector, files },
  );
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  server = await startDevServer({ port: await freePort() });
  admin = /Authorization: Bearer (dev-admin-\S+)/.exec(server.output())?.[1] as string;
  const identity = `---\nname: ${AGENT}\ndescription: Keeps notes in its workspace.\nicon: "🗂️"\n---\nYou keep notes.\n`;
  const uploaded = await fetch(`${server.url}/api/admin/agents/${AGENT}/identity`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${admin}` },
    body: identity,
  });
  expect(uploaded.status).toBe(200);
  browser = await launchChromium();
  page = await openPage(browser, errors);
  await page.goto(`${server.url}/console`);
  await page.click(`#roster button[data-agent="${AGENT}"]`);
  await page.waitForFunction(
    (name) => document.querySelector("#agent-name")?.textContent === name,
    AGENT,
  );
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("attachments in the composer", () => {
  it("sends files chosen with the paperclip or dropped on the chat as A2A file parts", async () => {
    await page.setInputFiles("#attach-input", [
      { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\nship it\n") },
      { name: HOSTILE_NAME, mimeType: "text/markdown", buffer: Buffer.from("hi") },
    ]);
    await drop("main.chat", [{ name: "data.csv", type: "text/csv", text: "a,b\n1,2\n" }]);
    await eventually(() =>
      page.locator("#attachments .attachment .name").allTextContents(),
    ).toEqual(["notes.md", HOSTILE_NAME, "data.csv"]);
    // A hostile name is a name: no element, no script.
    expect(await page.locator("#attachments img").count()).toBe(0);
    // One taken off again.
    await page.click(`#attachments .attachment[data-name="data.csv"] button`);
    expect(await page.locator("#attachments .attachment").count()).toBe(2);
    await page.fill("#prompt", "Read what I attached [[reply:I have your files.]]");
    await page.screenshot({ path: join(shots, "attachments.png") });
    await page.press("#prompt", "Enter");
    await page.waitForSelector(".agent-turn .status.state-completed");
    expect(await page.locator(".user-turn .sent-files li").allTextContents()).toEqual([
      "notes.md",
      HOSTILE_NAME,
    ]);
    expect(await page.locator("#attachments .attachment").count()).toBe(0);
    contextId = (await page
      .locator('#conversations li:has(button[aria-current="true"])')
      .getAttribute("data-context-id")) as string;
    expect(contextId).toBeTruthy();
    // What went out: the text, then each file as a part with its bytes, name and type.
    const sent = (await (
      await fetch(`${server.url}/agents/${AGENT}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "ListTasks",
          params: { contextId, historyLength: 10 },
        }),
      })
    ).json()) as {
      result: {
        tasks: Array<{ history: Array<{ role: string; parts: Array<Record<string, string>> }> }>;
      };
    };
    const message = sent.result.tasks[0]?.history.find((m) => m.role === "ROLE_USER");
    expect(message?.parts.map((p) => [p.text ?? p.filename, p.mediaType ?? null])).toEqual([
      ["Read what I attached [[reply:I have your files.]]", null],
      ["notes.md", "text/markdown"],
      [HOSTILE_NAME, "text/markdown"],
    ]);
    expect(Buffer.from(message?.parts[1]?.raw ?? "", "base64").toString()).toBe(
      "# Notes\nship it\n",
    );
    expect(await pwned()).toBeUndefined();
  });
});

describe("the Files tab", () => {
  it("browses the conversation's workspace; previews Markdown (inert), text and images", async () => {
    await send(
      'Keep a report [[tool:write_file {"path":"report.md","content":"# Report\\n\\nAll **green**."}]] [[tool:progress_update {"accomplished":["Drafted the report"],"remaining":["Review the numbers"],"summary":"The report is drafted."}]] [[tool:feature_update {"features":[{"id":"report","title":"The report","status":"in_progress"}]}]]',
    );
    await put("notes/hostile.md", HOSTILE_MARKDOWN);
    await put("notes/pixel.png", PNG);
    await put("notes/data.json", '{"ok": true, "html": "<b>not bold</b>"}');
    await put(`notes/${HOSTILE_NAME}`, "<script>window.__pwned = 2</script>");
    await page.click("#tab-files");
    const names = () => page.locator("#files-pane .file-name").allTextContents();
    await eventually(names).toContain("report.md");
    expect(await names()).toContain("PROGRESS.json");
    // A state file: what keeps it, and no delete.
    const progress = page.locator('#files-pane tr[data-path="PROGRESS.json"]');
    expect(await progress.locator(".kept-by").textContent()).toBe("kept by progress_update");
    expect(await progress.locator('button[aria-label^="Delete"]').count()).toBe(0);
    await page.click('#files-pane .file-name:text-is("report.md")');
    await eventually(() => text("#file-preview .file-markdown strong")).toBe("green");
    // Into the folder: a hostile Markdown file renders inert, an image shows, JSON is text.
    await page.click('#files-pane tr.folder button:has-text("notes/")');
    await eventually(names).toEqual([HOSTILE_NAME, "data.json", "hostile.md", "pixel.png"]);
    await page.click('#files-pane .file-name:text-is("hostile.md")');
    await inertMarkdown(page, page.locator("#file-preview .file-markdown"));
    await page.click(`#files-pane .file-name:text-is(${JSON.stringify(HOSTILE_NAME)})`);
    // Its text as Markdown: the tag is text.
    await eventually(async () => (await text("#file-preview .file-markdown"))?.trim()).toBe(
      "<script>window.__pwned = 2</script>",
    );
    expect(await page.locator("#file-preview script").count()).toBe(0);
    await page.click('#files-pane .file-name:text-is("data.json")');
    await eventually(() => text("#file-preview pre")).toContain("<b>not bold</b>");
    await page.click('#files-pane .file-name:text-is("pixel.png")');
    const image = page.locator("#file-preview img.file-image");
    await eventually(() => image.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(1);
    expect(await image.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(await pwned()).toBeUndefined();
    await page.click('#files-pane .file-name:text-is("hostile.md")');
    await page.waitForSelector("#file-preview .file-markdown h3");
    await page.screenshot({ path: join(shots, "files.png") });
  });

  it("downloads a file byte for byte, uploads (a button and a drop) and deletes", async () => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click('#files-pane tr[data-path="notes/pixel.png"] button[aria-label^="Download"]'),
    ]);
    expect(download.suggestedFilename()).toBe("pixel.png");
    expect(readFileSync((await download.path()) as string)).toEqual(PNG);
    await page.setInputFiles("#files-upload", {
      name: "todo.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("call the printer people\n"),
    });
    const names = () => page.locator("#files-pane .file-name").allTextContents();
    await eventually(names).toContain("todo.txt");
    await drop("#files-pane", [{ name: "dropped.md", type: "text/markdown", text: "# Dropped" }]);
    await eventually(names).toContain("dropped.md");
    const got = await fetch(
      `${server.url}/api/workspaces/${AGENT}/files/notes/todo.txt?contextId=${contextId}`,
    );
    expect(await got.text()).toBe("call the printer people\n");
    await page.click('#files-pane tr[data-path="notes/todo.txt"] button[aria-label^="Delete"]');
    await eventually(names).not.toContain("todo.txt");
    expect(
      (
        await fetch(
          `${server.url}/api/workspaces/${AGENT}/files/notes/todo.txt?contextId=${contextId}`,
        )
      ).status,
    ).toBe(404);
    expect(await text("#announcer")).toBe("Deleted notes/todo.txt.");
  });
});

describe("the State tab", () => {
  it("shows PROGRESS.json, the features, HANDOFF.md, the checkpoints and the change history", async () => {
    await page.click("#tab-state");
    await page.waitForSelector("#state-pane .progress-accomplished");
    expect(await page.locator("#state-pane .progress-accomplished li").allTextContents()).toEqual([
      "Drafted the report",
    ]);
    expect(await page.locator("#state-pane .progress-remaining li").allTextContents()).toEqual([
      "Review the numbers",
    ]);
    expect(await text("#state-pane .summary")).toBe("The report is drafted.");
    expect(await text("#state-pane table.features tbody tr")).toContain("report");
    expect(await text("#state-pane table.features tbody tr")).toContain("in progress");
    // HANDOFF.md, written when the task ended, as Markdown.
    expect(await page.locator("#state-pane .handoff").count()).toBe(1);
    expect(await page.locator("#state-pane .checkpoints li").count()).toBeGreaterThan(0);
    const history = await page.locator("#state-pane table.changes tbody tr").allTextContents();
    expect(history.some((row) => row.includes("report.md"))).toBe(true);
    // The person's own changes are marked as a person's.
    expect(
      history.some((row) => row.includes("notes/todo.txt") && row.includes("(a person)")),
    ).toBe(true);
    await page.screenshot({ path: join(shots, "state.png") });
  });
});

describe("the Raw tab", () => {
  it("shows every request the page made and its answer as JSON, a stream's events included", async () => {
    await page.click("#tab-raw");
    const exchange = page
      .locator("#raw-pane details.exchange", { hasText: "SendStreamingMessage" })
      .first();
    await exchange.locator("summary").click();
    await eventually(() => exchange.locator("pre").count()).toBe(2);
    const [request, answer] = await exchange.locator("pre").allTextContents();
    const sent = JSON.parse(request ?? "{}") as {
      method: string;
      params: { message: { parts: unknown[] } };
    };
    expect(sent.method).toBe("SendStreamingMessage");
    const streamed = JSON.parse(answer ?? "{}") as {
      status: number;
      events: Array<{ result: unknown }>;
    };
    expect(streamed.status).toBe(200);
    expect(streamed.events.length).toBeGreaterThan(2);
    // The token never is: no headers are kept.
    expect(await page.locator("#raw-pane").textContent()).not.toMatch(/Authorization|Bearer/);
    await page.screenshot({ path: join(shots, "raw.png") });
  });
});

describe("conversations renamed and searched", () => {
  it("renames a conversation (kept over a reload) and finds conversations by their titles", async () => {
    await page.click("#new-chat");
    await send("Plan the offsite [[reply:Planned.]]");
    const rows = () => page.locator("#conversations .title").allTextContents();
    await eventually(rows).toHaveLength(2);
    const first = page.locator(`#conversations li[data-context-id="${contextId}"]`);
    await first.locator(".rename-button").click();
    await page.fill("#conversations input.rename", "Quarterly report");
    await page.press("#conversations input.rename", "Enter");
    await eventually(rows).toContain("Quarterly report");
    await first.locator("button.open").click();
    await eventually(() => text("#conversation-title")).toBe("Quarterly report");
    await page.reload();
    await eventually(() => text("#conversation-title")).toBe("Quarterly report");
    await page.fill("#conversation-search", "quarterly");
    await eventually(rows).toEqual(["Quarterly report"]);
    await page.fill("#conversation-search", "OFFSITE");
    await eventually(rows).toEqual(["Plan the offsite [[reply:Planned.]]"]);
    await page.fill("#conversation-search", "nothing like it");
    await eventually(() => text("#conversations")).toBe(
      "No conversation matches “nothing like it”.",
    );
    await page.fill("#conversation-search", "");
    await eventually(rows).toHaveLength(2);
    expect(errors).toEqual([]);
  });
});

describe("the README's screenshot", () => {
  it.runIf(servedAgents().includes("writer"))(
    "is the writer on docs/dev-loop.md's two prompts (docs/console.png is a copy)",
    async () => {
      // The shipped agents only: the test's own agent goes first.
      const removed = await fetch(`${server.url}/api/admin/agents/${AGENT}/identity`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${admin}` },
      });
      expect(removed.status).toBe(204);
      const fresh = await openPage(browser, errors, { width: 1400, height: 1000 });
      await fresh.goto(`${server.url}/console`);
      await fresh.click('#roster button[data-agent="writer"]');
      await eventually(() => fresh.locator("#agent-name").textContent()).toBe("writer");
      expect(await fresh.locator(`#roster button[data-agent="${AGENT}"]`).count()).toBe(0);
      const prompts = [
        ...readFileSync(join(ROOT, "docs", "dev-loop.md"), "utf8").matchAll(
          /^`{3,4}text\n([\s\S]*?)\n`{3,4}$/gm,
        ),
      ]
        .map((m) => m[1] ?? "")
        .filter((p) => p.includes("[[reply:"));
      expect(prompts).toHaveLength(2);
      await fresh.fill("#prompt", prompts[0] ?? "");
      await fresh.press("#prompt", "Enter");
      await fresh.waitForSelector(".agent-turn .status.state-completed");
      await fresh.fill("#prompt", prompts[1] ?? "");
      await fresh.press("#prompt", "Enter");
      await fresh.waitForSelector(".agent-turn:last-child .answer:not(:empty)");
      await fresh.locator(".agent-turn").first().locator("text=inspect task").click();
      await fresh.waitForSelector("#inspector-body table.log tbody tr");
      expect((await transcriptOf(fresh)).length).toBe(4);
      await fresh.screenshot({ path: join(shots, "readme.png") });
      await fresh.close();
      expect(errors).toEqual([]);
    },
  );
});
