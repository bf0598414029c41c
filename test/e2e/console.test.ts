/**
 * The web console in headless Chromium (Debian's chromium, driven by playwright-core) against
 * `wrangler dev` with auth on: sign in with a token made by the users CLI, load the roster, send
 * a message and see the plan event and streamed text appear before the task completes, answer an
 * input-required form, open the inspector. Screenshots go to test-results/console/.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel } from "../fake-model/server.ts";
import { scenario as scriptScenario } from "./client.ts";
import { type DevServer, freePort, startDevServer } from "./dev-server.ts";

const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test-results", "console");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let fake: Awaited<ReturnType<typeof startFakeModel>>;
let server: DevServer;
let browser: Browser;
let page: Page;
let token: string;
const errors: string[] = [];

const scenario = (id: string, turns: unknown[]) => scriptScenario(fake.url, id, turns);

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium)`);
  mkdirSync(shots, { recursive: true });
  fake = await startFakeModel({ port: 0 });
  server = await startDevServer({
    port: await freePort(),
    vars: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "e2e-key", AUTH_REQUIRED: "true" },
  });
  const made = spawnSync(
    process.execPath,
    [join(root, "scripts", "users.ts"), "add", "console-user", "--persist-to", server.persistDir],
    { cwd: root, encoding: "utf8" },
  );
  token = /(a2a_[A-Za-z0-9_-]{43})/.exec(made.stdout)?.[1] as string;
  expect(token).toBeDefined();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
});

describe("the web console", () => {
  it("asks for a token when auth is on, then loads the roster", async () => {
    await page.goto(`${server.url}/console`);
    await expect.poll(() => page.textContent("#who")).toBe("sign in with a token");
    expect(await page.isVisible("#signin")).toBe(true);
    await page.fill("#token", token);
    await page.click("#signin button[type=submit]");
    await expect.poll(() => page.textContent("#who")).toBe("signed in as console-user");
    // The roster loads after the sign-in line changes: poll for it (a loaded machine is slower).
    await expect
      .poll(() => page.$$eval("#roster button", (b) => b.map((x) => x.dataset.agent)))
      .toEqual(["assistant", "deep-thinker", "researcher", "writer"]);
    expect(await page.getAttribute('#roster button[data-agent="assistant"]', "aria-pressed")).toBe(
      "true",
    );
    expect(await page.textContent("#agent-name")).toBe("assistant");
    // The only error so far is the browser's note of the 401 that asked for the token.
    expect(errors).toEqual([
      "Failed to load resource: the server responded with a status of 401 (Unauthorized)",
    ]);
    errors.length = 0;
  });

  it("streams an answer and shows the plan and tool events as they happen", async () => {
    const marker = await scenario("console-plan", [
      {
        text: "",
        toolUses: [
          {
            name: "write_todos",
            input: {
              todos: [
                { content: "Read the brief", status: "completed" },
                { content: "Draft the answer", status: "in_progress" },
              ],
            },
          },
        ],
      },
      {
        text: "Here is the plan, written out slowly so you can watch it arrive piece by piece.",
        delayMs: 40,
        chunkSize: 3,
      },
    ]);
    await page.fill("#prompt", `Make a plan ${marker}`);
    await page.press("#prompt", "Enter");
    await page.waitForSelector('.agent-turn .event[data-kind="plan"]');
    // Text is on the page while the task is still working: it streams.
    await page.waitForFunction(() => {
      const turn = Array.from(document.querySelectorAll(".agent-turn")).at(-1);
      const text = turn?.querySelector(".answer")?.textContent ?? "";
      const status = turn?.querySelector(".status")?.textContent ?? "";
      return text.length > 0 && !status.includes("completed");
    });
    await page.waitForSelector(".agent-turn .status.state-completed");
    const turn = page.locator(".agent-turn").last();
    expect(await turn.locator(".answer").textContent()).toBe(
      "Here is the plan, written out slowly so you can watch it arrive piece by piece.",
    );
    expect(await turn.locator('.event[data-kind="tool_call"]').count()).toBe(1);
    expect(await turn.locator(".plan li").allTextContents()).toEqual([
      "☑ Read the brief",
      "▶ Draft the answer",
    ]);
    await page.screenshot({ path: join(shots, "chat.png"), fullPage: true });
  });

  it("answers an input-required form", async () => {
    const marker = await scenario("console-form", [
      {
        text: "",
        toolUses: [
          {
            name: "ask_user",
            input: {
              question: "Which day should the report go out?",
              fields: { day: { type: "string", enum: ["monday", "friday"] } },
              required: ["day"],
            },
          },
        ],
      },
      { text: "Scheduled for friday." },
    ]);
    await page.click("#new-chat");
    await page.fill("#prompt", `Schedule the report ${marker}`);
    await page.click("#composer button[type=submit]");
    await page.waitForSelector(".answer-form select[name=day]");
    expect(await page.textContent(".agent-turn .status.state-input-required")).toContain(
      "Which day should the report go out?",
    );
    await page.screenshot({ path: join(shots, "form.png"), fullPage: true });
    await page.selectOption(".answer-form select[name=day]", "friday");
    await page.click(".answer-form button[type=submit]");
    await expect
      .poll(() => page.locator(".agent-turn").last().locator(".answer").textContent())
      .toBe("Scheduled for friday.");
    expect(await page.locator(".user-turn").last().textContent()).toContain('{"day":"friday"}');
  });

  it("opens the inspector: status, usage, artifacts, history and the timed event log", async () => {
    await page.locator(".agent-turn").last().locator("text=inspect task").click();
    await page.waitForSelector("#inspector-body table.log tbody tr");
    const facts = await page.locator("#inspector-body .facts").textContent();
    expect(facts).toContain("completed");
    expect(facts).toMatch(/\d+ in · \d+ out/);
    const rows = await page.locator("#inspector-body table.log tbody tr").count();
    expect(rows).toBeGreaterThan(3);
    expect(await page.locator("#inspector-body table.log").textContent()).toContain(
      "input-required",
    );
    expect(await page.locator("#inspector-body details").first().textContent()).toContain(
      "Scheduled for friday.",
    );
    await page.screenshot({ path: join(shots, "inspector.png"), fullPage: true });
    // Readable in dark mode too; and on a phone-sized screen.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(shots, "inspector-dark.png"), fullPage: true });
    await page.setViewportSize({ width: 420, height: 900 });
    await page.screenshot({ path: join(shots, "narrow.png"), fullPage: true });
    expect(errors).toEqual([]);
  });
});
