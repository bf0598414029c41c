/**
 * The console's finishing touches in headless Chromium against `wrangler dev`, open to anonymous
 * callers: each agent's icon beside its name (an emoji, or an https image its CSP lets in), the
 * starter prompts of its IDENTITY.md as chips on an empty conversation, "@agent" to write to
 * another agent (a new conversation with it), English and Portuguese (Brazil) chosen by the
 * browser with a switch that is remembered, and voice input only where the browser has speech
 * recognition. Screenshots of the starters and of the Portuguese console go to
 * test-results/console/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HARNESS_EVENT_KINDS } from "../../src/protocol/harness-event-kinds.ts";
import { openPage, transcriptOf } from "./browser.ts";
import { type ConsoleSession, consoleSessionOn } from "./console-session.ts";
import type { DevServer } from "./dev-server.ts";
import { ROOT } from "./processes.ts";
import { removeUploadedAgent, sharedScriptedHarness } from "./shared-harness.ts";
import { addUser } from "./users.ts";

const shots = join(ROOT, "test-results", "console");
const ICON_URL = "https://icons.test/greeter.png";
/** A 1x1 PNG, the greeter's icon as the (routed) icon host serves it. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

let session: ConsoleSession;
let server: DevServer;
let browser: Browser;
let page: Page;
let starters: Record<string, string[]>;
/** The admin who uploads the greeter, and removes it at the end. */
let adminToken: string | undefined;

const said = async (on = page) => (await transcriptOf(on)).map((t) => t.said);
const text = (selector: string, on = page) => on.locator(selector).first().textContent();

/** Serves the greeter's icon in the browser (the icon host is never reached). */
const serveIcon = (on: Page) =>
  on.route(ICON_URL, (route) => route.fulfill({ body: PNG, contentType: "image/png" }));

/** The page's own words: each data-i18n key (and data-i18n-<attribute> key) with its text. */
const markupWords = (on: Page) =>
  on.evaluate(() => {
    const words: Record<string, string> = {};
    for (const node of Array.from(document.querySelectorAll("*")))
      for (const { name, value } of Array.from(node.attributes)) {
        if (name === "data-i18n") words[value] = node.textContent ?? "";
        else if (name.startsWith("data-i18n-"))
          words[`${value}@${name.slice(10)}`] = node.getAttribute(name.slice(10)) ?? "";
      }
    return words;
  });

/** A fresh page (own storage) in `locale`; `init` runs before the page's scripts. */
async function freshPage(locale: string, init?: () => void): Promise<Page> {
  const fresh = await openPage(browser, session.errors, undefined, locale);
  await serveIcon(fresh);
  if (init) await fresh.addInitScript(init);
  await fresh.goto(`${server.url}/console`);
  await fresh.waitForSelector('#roster button[aria-pressed="true"]');
  return fresh;
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  const harness = await sharedScriptedHarness();
  session = await consoleSessionOn(harness, harness.release);
  ({ page } = session);
  ({ server } = session.harness);
  browser = page.context().browser() as Browser;
  // An agent with an https icon, uploaded by an admin: its origin joins the page's img-src.
  const token = await addUser(server, "console-admin", ["--role", "admin"]);
  expect(token).toBeDefined();
  adminToken = token;
  const identity = [
    "---",
    "name: greeter",
    "description: Says hello.",
    "version: 1.0.0",
    "model: claude-sonnet-4-6",
    "maxTurns: 3",
    "maxTokens: 1024",
    `icon: ${ICON_URL}`,
    "starters: ['Say hello [[reply:Hello!]]']",
    "---",
    "You greet people.",
  ].join("\n");
  const put = await fetch(`${server.url}/api/admin/agents/greeter/identity`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${token}`, "content-type": "text/markdown" },
    body: identity,
  });
  expect(put.status).toBe(200);
  const listed = (await (await fetch(`${server.url}/agents`)).json()) as {
    agents: Array<{ name: string; starters: string[] }>;
  };
  starters = Object.fromEntries(listed.agents.map((a) => [a.name, a.starters]));
  await serveIcon(page);
});

afterAll(async () => {
  // The shared server serves the next file as it found it: without the greeter.
  if (adminToken !== undefined) await removeUploadedAgent(server, "greeter", adminToken);
  await session?.stop();
});

describe("the console's icons, starters and @agent", () => {
  it("shows each agent's icon beside its name: an emoji, or an https image the CSP lets in", async () => {
    const response = await page.goto(`${server.url}/console`);
    expect(response?.headers()["content-security-policy"]).toContain(
      "img-src 'self' data: https://icons.test;",
    );
    await page.waitForSelector('#roster button[data-agent="greeter"] img.agent-icon');
    expect(await text('#roster button[data-agent="assistant"] .agent-icon')).toBe("🧭");
    expect(await text('#roster button[data-agent="writer"] .agent-icon')).toBe("✍️");
    expect(await text("#agent-icon")).toBe("🧭");
    expect(await text("#agent-name")).toBe("assistant");
    await page.click('#roster button[data-agent="greeter"]');
    const img = page.locator("#agent-icon img");
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(1);
    expect(await img.getAttribute("src")).toBe(ICON_URL);
    expect(await img.getAttribute("alt")).toBe("");
    expect(session.errors).toEqual([]);
  });

  it("offers the agent's starters as chips on an empty conversation; a chip sends its prompt", async () => {
    await page.click('#roster button[data-agent="assistant"]');
    expect(starters.assistant?.length).toBeGreaterThan(1);
    await expect
      .poll(() => page.locator(".starters button.chip").allTextContents())
      .toEqual(starters.assistant);
    expect(await text(".starters p")).toBe("Start with one of these");
    await page.screenshot({ path: join(shots, "starters.png") });
    const chosen = starters.assistant?.[1] as string;
    await page.locator(".starters button.chip").nth(1).click();
    await page.waitForSelector(".agent-turn .status.state-completed");
    expect((await said())[0]).toBe(chosen);
    expect(await page.locator(".starters").count()).toBe(0);
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual([chosen]);
    // A new conversation offers them again; a restored one does not.
    await page.click("#new-chat");
    expect(await page.locator(".starters button.chip").count()).toBe(starters.assistant?.length);
    await page.click("#conversations li button.open");
    await expect.poll(said).toContain(chosen);
    expect(await page.locator(".starters").count()).toBe(0);
  });

  it("sends a message that begins with @agent to that agent, in a new conversation with it", async () => {
    const assistantContext = await page
      .locator('#conversations li:has(button[aria-current="true"])')
      .getAttribute("data-context-id");
    // "@" offers the agents; Tab completes the first match.
    await page.fill("#prompt", "@wr");
    await page.dispatchEvent("#prompt", "input");
    await expect
      .poll(() => page.locator("#mentions button").allTextContents())
      .toEqual(["✍️@writer"]);
    await page.press("#prompt", "Tab");
    expect(await page.inputValue("#prompt")).toBe("@writer ");
    expect(await page.isVisible("#mentions")).toBe(false);
    await session.send("@writer Draft it [[reply:Drafted.]]");
    await expect.poll(() => text("#agent-name")).toBe("writer");
    expect(await page.getAttribute('#roster button[data-agent="writer"]', "aria-pressed")).toBe(
      "true",
    );
    await expect.poll(said).toEqual(["Draft it [[reply:Drafted.]]", "Drafted."]);
    // An unknown name is not an address: the message goes as typed to the open agent.
    await session.send("@nobody hello [[reply:Only writer here.]]");
    await expect.poll(said).toContain("Only writer here.");
    expect(await text("#agent-name")).toBe("writer");
    // The assistant's conversation did not change.
    await page.click('#roster button[data-agent="assistant"]');
    await expect.poll(said).toEqual([starters.assistant?.[1], expect.any(String)]);
    expect(
      await page
        .locator('#conversations li:has(button[aria-current="true"])')
        .getAttribute("data-context-id"),
    ).toBe(assistantContext);
    expect(session.errors).toEqual([]);
  });
});

describe("the console in English and Portuguese (Brazil)", () => {
  it("has every English string in Portuguese (Brazil), the events' kinds included", async () => {
    const load = async (file: string) =>
      (await import(pathToFileURL(join(ROOT, "src", "console", "static", file)).href)) as Record<
        string,
        Record<string, unknown>
      >;
    const en = (await load("i18n/lang-en.js")).EN ?? {};
    const pt = (await load("i18n/lang-pt-br.js")).PT_BR ?? {};
    const shape = (dictionary: Record<string, unknown>) =>
      Object.entries(dictionary)
        .filter(([key]) => key !== "kinds")
        .map(([key, value]) =>
          typeof value === "function"
            ? `${key}(${value.length})`
            : Array.isArray(value)
              ? `${key}[${value.length}]`
              : value && typeof value === "object"
                ? `${key}{${Object.keys(value).sort().join()}}`
                : key,
        )
        .sort();
    expect(shape(pt)).toEqual(shape(en));
    expect(Object.keys(pt.kinds ?? {}).sort()).toEqual([...HARNESS_EVENT_KINDS].sort());
  });

  it("speaks Portuguese to a browser that asks for it; the switch changes it and is remembered", async () => {
    const pt = await freshPage("pt-BR");
    expect(await pt.getAttribute("html", "lang")).toBe("pt-BR");
    expect(await pt.inputValue("#lang")).toBe("pt-BR");
    expect(await pt.title()).toBe("Console do A2A edge harness");
    expect(await text("#who", pt)).toBe("aberto (sem login)");
    expect(await text("#roster-title", pt)).toBe("Agentes");
    expect(await text("#send", pt)).toBe("Enviar");
    expect(await pt.getAttribute("#prompt", "placeholder")).toBe(
      "Escreva ao agente, ou @nome a outro",
    );
    expect(await text("#conversation-title", pt)).toBe("Nova conversa");
    expect(await text(".starters p", pt)).toBe("Comece com uma destas");
    // The list arrives with its own request, after the roster.
    await expect.poll(() => text("#conversations", pt)).toBe("Nenhuma conversa ainda.");
    // Every word of the markup is translated ("Token" is Portuguese too).
    const english = await markupWords(page);
    const portuguese = await markupWords(pt);
    expect(Object.keys(english).length).toBeGreaterThan(20);
    expect(Object.keys(portuguese).sort()).toEqual(Object.keys(english).sort());
    const same = Object.keys(english).filter((key) => english[key] === portuguese[key]);
    expect(same).toEqual(["token"]);
    // A conversation: statuses, events, actions and the inspector in Portuguese.
    await pt.click('#roster button[data-agent="writer"]');
    await pt.fill("#prompt", 'Salve [[tool:write_file {"path":"a.md","content":"oi"}]]');
    await pt.press("#prompt", "Enter");
    await pt.waitForSelector(".agent-turn .status.state-completed");
    expect(await text(".agent-turn .status", pt)).toMatch(/^concluída/);
    expect(await text('.event[data-kind="tool_call"] .kind', pt)).toBe("chamada de ferramenta");
    expect(await text(".user-turn .who", pt)).toBe("você");
    await pt.click("text=inspecionar tarefa");
    await pt.waitForSelector("#inspector-body table.log tbody tr");
    expect(await text("#inspector-body h3", pt)).toBe("Artefatos");
    await expect.poll(() => text("#conversations .meta", pt)).toBe("agora mesmo");
    await pt.screenshot({ path: join(shots, "pt-br.png") });

    // The switch: English at once (the conversation redrawn), still English after a reload.
    await pt.selectOption("#lang", "en");
    await expect.poll(() => text("#who", pt)).toBe("open (no sign-in needed)");
    expect(await pt.getAttribute("html", "lang")).toBe("en");
    expect(await text("#send", pt)).toBe("Send");
    await expect.poll(() => text(".agent-turn .status", pt)).toMatch(/^completed/);
    expect(await text('.event[data-kind="tool_call"] .kind', pt)).toBe("tool call");
    await pt.reload();
    await expect.poll(() => text("#who", pt)).toBe("open (no sign-in needed)");
    expect(await pt.inputValue("#lang")).toBe("en");
    await pt.selectOption("#lang", "pt-BR");
    await pt.reload();
    await expect.poll(() => text("#who", pt)).toBe("aberto (sem login)");
    await pt.close();
    expect(session.errors).toEqual([]);
  });
});

describe("voice input", () => {
  it("is hidden where the browser has no speech recognition", async () => {
    const none = await freshPage("en-US", () => {
      const w = window as unknown as Record<string, unknown>;
      delete w.SpeechRecognition;
      delete w.webkitSpeechRecognition;
    });
    // The button is on the page, and stays hidden.
    expect(await none.locator("#voice").count()).toBe(1);
    expect(await none.locator("#voice").isHidden()).toBe(true);
    await none.close();
  });

  it("dictates into the message box in the console's language where it has it", async () => {
    const stubbed = await freshPage("pt-BR", () => {
      const w = window as unknown as Record<string, unknown>;
      delete w.webkitSpeechRecognition;
      w.SpeechRecognition = class {
        lang = "";
        onresult: ((e: unknown) => void) | null = null;
        onerror: ((e: unknown) => void) | null = null;
        onend: (() => void) | null = null;
        start() {
          w.heardIn = this.lang;
          const fail = w.failNext;
          setTimeout(() => {
            if (fail) this.onerror?.({ error: "network" });
            else this.onresult?.({ results: [[{ transcript: "olá do microfone" }]] });
            this.onend?.();
          }, 0);
        }
        stop() {
          this.onend?.();
        }
      };
    });
    expect(await stubbed.locator("#voice").isVisible()).toBe(true);
    expect(await stubbed.getAttribute("#voice", "aria-label")).toBe("Entrada por voz");
    await stubbed.fill("#prompt", "Nota:");
    await stubbed.click("#voice");
    await expect.poll(() => stubbed.inputValue("#prompt")).toBe("Nota: olá do microfone");
    expect(await stubbed.evaluate(() => (window as unknown as { heardIn: string }).heardIn)).toBe(
      "pt-BR",
    );
    expect(await stubbed.getAttribute("#voice", "aria-pressed")).toBe("false");
    // A recognizer that turns out to have no service: the button goes, and the page says why.
    await stubbed.evaluate(() => {
      (window as unknown as { failNext: boolean }).failNext = true;
    });
    await stubbed.click("#voice");
    await expect.poll(() => stubbed.locator("#voice").isHidden()).toBe(true);
    expect(await text("#announcer", stubbed)).toBe(
      "A entrada por voz não está disponível neste navegador.",
    );
    await stubbed.close();
    expect(session.errors).toEqual([]);
  });
});
