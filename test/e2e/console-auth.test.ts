/**
 * The web console with auth on, before and around sign-in (issue 29), in headless Chromium: the
 * signed-out page says a token is needed and where one comes from, with the message box disabled;
 * a wrong token is said to be not accepted (unknown, revoked, expired or mistyped) and not kept;
 * one it could not check (429: too many failed tries) is kept; a good one opens the agents.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, startConsoleSession } from "./console-session.ts";
import { addUser } from "./users.ts";

let session: ConsoleSession;
let page: Page;
let url: string;
let token: string;

const kept = () => page.evaluate(() => localStorage.getItem("a2a-token"));
const who = () => page.textContent("#who");

/** Types `value` into the token box and signs in. */
async function signIn(value: string): Promise<void> {
  await page.fill("#token", value);
  await page.click("#signin button[type=submit]");
}

/** What the signed-out page shows. */
async function expectSignedOut(line: string): Promise<void> {
  await expect.poll(who).toBe(line);
  expect(await page.isVisible("#signin")).toBe(true);
  expect(await page.textContent("#agent-name")).toBe("Sign in to talk to the agents");
  expect(await page.textContent("#signin-help")).toContain("npm run users -- add <id>");
  expect(await page.isDisabled("#prompt")).toBe(true);
  expect(await page.getAttribute("#prompt", "placeholder")).toBe("Sign in with a token first");
}

beforeAll(async () => {
  // Two failed credentials a minute: the third is answered 429 before it is checked.
  session = await startConsoleSession({ AUTH_REQUIRED: "true", AUTH_FAILURES_PER_MINUTE: "2" });
  ({ page } = session);
  url = session.harness.server.url;
  token = (await addUser(session.harness.server, "auth-user")) as string;
  expect(token).toBeDefined();
});

afterAll(async () => {
  await session?.stop();
});

describe("the web console with auth on", () => {
  it("signed out: says a token is needed and where one comes from; nothing to type into", async () => {
    await page.goto(`${url}/console`);
    await expectSignedOut("sign in with a token");
    expect(await page.isDisabled("#send")).toBe(true);
    expect(await page.locator("#roster button").count()).toBe(0);
  });

  it("a good token opens the agents; signing out comes back to the signed-out page", async () => {
    await signIn(token);
    await expect.poll(who).toBe("signed in as auth-user");
    await expect.poll(() => page.locator("#roster button").count()).toBeGreaterThan(0);
    expect(await page.isDisabled("#prompt")).toBe(false);
    expect(await page.getAttribute("#prompt", "placeholder")).toBe(
      "Message the agent, or @name another one",
    );
    expect(await kept()).toBe(token);
    await page.click("#signout");
    await expectSignedOut("sign in with a token");
    expect(await kept()).toBeNull();
  });

  it("a wrong token: not accepted, and not kept (not after a reload either)", async () => {
    await signIn("a2a_not-a-token-at-all");
    await expectSignedOut("the token was not accepted (unknown, revoked, expired or mistyped)");
    expect(await kept()).toBeNull();
    await page.reload();
    await expectSignedOut("sign in with a token");
  });

  it("a token that could not be checked (429) is kept, with the server's reason", async () => {
    // The second failed try of the minute may still be checked (and refused): try until a 429.
    let typed = "";
    for (let i = 0; i < 6; i++) {
      await page.evaluate(() => {
        const line = document.querySelector("#who");
        if (line) line.textContent = "";
      });
      typed = `a2a_wrong-${i}`;
      await signIn(typed);
      await expect.poll(who).not.toBe("");
      if ((await who())?.startsWith("the token could not be checked")) break;
      expect(await who()).toBe(
        "the token was not accepted (unknown, revoked, expired or mistyped)",
      );
    }
    expect(await who()).toMatch(
      /^the token could not be checked: Too many failed credentials: the limit is 2 a minute\. Retry after \d+ s\.$/,
    );
    expect(await kept()).toBe(typed);
  });
});
