/**
 * Debian's Chromium for the console tests, driven by playwright-core: launch it (fails with the
 * install hint when it is missing), open a page that records script errors and console errors
 * (CSP and Trusted Types violations are console errors), and read the transcript in a form
 * tests can compare before and after a reload. Node only.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Launches headless Chromium. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium)`);
  return chromium.launch({
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
}

/**
 * A page (in a context of its own: its own localStorage) that collects errors into `errors` and
 * accepts confirm() dialogs; the browser's language is `locale` (en-US unless given).
 */
export async function openPage(
  browser: Browser,
  errors: string[],
  viewport = { width: 1400, height: 900 },
  locale = "en-US",
): Promise<Page> {
  const page = await browser.newPage({ viewport, locale });
  // Waits for the server's progress (a model round trip, a stream): Playwright's 30 s default is
  // short on a loaded machine, and a passing wait returns as soon as it holds.
  page.setDefaultTimeout(60_000);
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("dialog", (dialog) => dialog.accept());
  return page;
}

/** One transcript entry as the person sees it. */
export interface ShownTurn {
  who: string;
  said: string;
  events: string[];
  status: string;
}

/** The open conversation's turns: who, what was said or answered, event kinds, status. */
export function transcriptOf(page: Page): Promise<ShownTurn[]> {
  return page.$$eval(".messages > .turn", (turns) =>
    turns.map((turn) => ({
      who: turn.querySelector(".who")?.textContent ?? "",
      said: (turn.querySelector(".said, .answer")?.textContent ?? "").trim(),
      events: Array.from(turn.querySelectorAll(".event")).map(
        (e) => (e as HTMLElement).dataset.kind ?? "",
      ),
      status: (turn.querySelector(".status")?.textContent ?? "").trim(),
    })),
  );
}
