/**
 * The web console under test: a scripted harness (`wrangler dev` keyed to the fake model; its
 * own, or a shared one from shared-harness.ts) and headless Chromium with one page that records
 * its script and console errors; stopped together.
 * Node only.
 */
import type { Browser, Page } from "playwright-core";
import { launchChromium, openPage } from "./browser.ts";
import { scenario } from "./client.ts";
import { type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";

/** A running console session. */
export interface ConsoleSession {
  harness: Pick<ScriptedHarness, "fake" | "server" | "modelVars">;
  page: Page;
  /** The page's errors so far (a test that expects some clears them: `errors.length = 0`). */
  errors: string[];
  /** Registers a scenario with the harness's model; its marker. */
  scenario(id: string, turns: unknown[]): Promise<string>;
  /** Types `text` into the console's prompt and sends it with Enter. */
  send(text: string): Promise<void>;
  /** Closes the browser, then stops (or gives back) the harness. */
  stop(): Promise<void>;
}

/** Starts the harness (with `vars`), then Chromium and a page; nothing is loaded yet. */
export async function startConsoleSession(
  vars: Record<string, string> = {},
): Promise<ConsoleSession> {
  const harness = await startScriptedHarness(vars);
  return consoleSessionOn(harness, harness.stop);
}

/**
 * Starts Chromium and a page on a running harness (such as a shared one); the session's `stop`
 * closes the browser, then calls `done` (which stops or releases the harness).
 */
export async function consoleSessionOn(
  harness: ConsoleSession["harness"],
  done: () => Promise<void>,
): Promise<ConsoleSession> {
  const errors: string[] = [];
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await done();
  };
  try {
    browser = await launchChromium();
    const page = await openPage(browser, errors);
    return {
      harness,
      page,
      errors,
      scenario: (id, turns) => scenario(harness.fake.url, id, turns),
      async send(text) {
        await page.fill("#prompt", text);
        await page.press("#prompt", "Enter");
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
