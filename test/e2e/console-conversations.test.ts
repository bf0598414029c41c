/**
 * The console's conversations in headless Chromium against `wrangler dev` open to anonymous
 * callers, whose server-side conversation list is empty (GET /api/sessions is stubbed to
 * `{"sessions": []}`, what the server answers anonymous callers), so everything listed comes from
 * the browser's own record: nothing typed is lost while the card or the transcript loads, a reload
 * or an agent switch rebuilds the transcript with its tool and hook events, past conversations
 * reopen and go on, Stop cancels a running task (also one followed after a reload), a declined
 * request shows its reason.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transcriptOf } from "./browser.ts";
import { type ConsoleSession, consoleSessionOn } from "./console-session.ts";
import type { DevServer } from "./dev-server.ts";
import { ROOT } from "./processes.ts";
import { sharedScriptedHarness } from "./shared-harness.ts";

const shots = join(ROOT, "test-results", "console");
let session: ConsoleSession;
let server: DevServer;
let page: Page;

const said = async () => (await transcriptOf(page)).map((t) => t.said);
const activeContext = () =>
  page
    .locator('#conversations li:has(button[aria-current="true"])')
    .getAttribute("data-context-id");

/** A JSON-RPC call from outside the browser, as the same anonymous caller. */
async function rpc(agent: string, method: string, params: unknown) {
  const response = await fetch(`${server.url}/agents/${agent}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: Record<string, unknown> }).result;
}

/** Holds requests matching `match` until the returned function is called. */
async function hold(match: (url: URL) => boolean): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(match, async (route) => {
    await held;
    await route.continue();
  });
  return () => {
    release();
    page.unroute(match);
  };
}

beforeAll(async () => {
  const harness = await sharedScriptedHarness();
  session = await consoleSessionOn(harness, harness.release);
  ({ page } = session);
  ({ server } = session.harness);
  await page.route(
    (url) => url.pathname === "/api/sessions",
    (route) => route.fulfill({ json: { sessions: [] } }),
  );
});

afterAll(async () => {
  await session?.stop();
});

describe("the console's conversations, anonymous", () => {
  it("keeps a message sent while the agent's card is still loading", async () => {
    const release = await hold((url) => url.pathname.endsWith("/agent-card.json"));
    await page.goto(`${server.url}/console`);
    await expect.poll(() => page.textContent("#agent-card")).toBe("loading the card…");
    await session.send("Hello [[reply:Hi there.]]");
    await page.waitForSelector(".agent-turn .status.state-completed");
    release();
    await page.waitForSelector("#agent-card .skills li", { state: "attached" });
    expect(await said()).toEqual(["Hello [[reply:Hi there.]]", "Hi there."]);
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual(["Hello [[reply:Hi there.]]"]);
  });

  it("sends a message typed while the transcript loads after it, in the same conversation", async () => {
    const release = await hold((url) => /^\/api\/sessions\/./.test(url.pathname));
    await page.reload();
    await page.waitForSelector(".messages .note");
    await session.send("Second [[reply:Again.]]");
    // Shown at once, sent once the conversation is known.
    expect(await said()).toEqual(["Second [[reply:Again.]]", ""]);
    release();
    await expect
      .poll(said)
      .toEqual(["Hello [[reply:Hi there.]]", "Hi there.", "Second [[reply:Again.]]", "Again."]);
    const contextId = await activeContext();
    const page1 = await rpc("assistant", "ListTasks", { contextId });
    expect((page1.tasks as unknown[]).length).toBe(2);
  });

  it("rebuilds the transcript and its tool and hook events after a reload or an agent switch", async () => {
    await page.click('#roster button[data-agent="writer"]');
    expect(await page.textContent("#conversation-title")).toBe("New conversation");
    await session.send('Save a note. [[tool:write_file {"path":"notes.md","content":"hello"}]]');
    await page.waitForSelector(".agent-turn .status.state-completed");
    const live = await transcriptOf(page);
    expect(live[1]?.events).toEqual(["tool_call", "checkpoint", "tool_result", "verification"]);
    const checkpoint = page.locator('.event[data-kind="checkpoint"] svg.icon');
    expect((await checkpoint.boundingBox())?.width).toBeGreaterThan(8);
    await page.reload();
    await expect.poll(() => transcriptOf(page)).toEqual(live);
    await page.click('#roster button[data-agent="assistant"]');
    await expect.poll(said).toContain("Again.");
    await page.click('#roster button[data-agent="writer"]');
    await expect.poll(() => transcriptOf(page)).toEqual(live);
    await page.screenshot({ path: join(shots, "restored.png") });
  });

  it("reopens a past conversation from the list and goes on in it; deletes one", async () => {
    await page.click('#roster button[data-agent="assistant"]');
    await page.click("#new-chat");
    await session.send("Another topic [[reply:Noted.]]");
    await page.waitForSelector(".agent-turn .status.state-completed");
    const another = await activeContext();
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual(["Another topic [[reply:Noted.]]", "Hello [[reply:Hi there.]]"]);
    await page.click("#conversations li:nth-child(2) button.open");
    await expect
      .poll(said)
      .toEqual(["Hello [[reply:Hi there.]]", "Hi there.", "Second [[reply:Again.]]", "Again."]);
    const hello = await activeContext();
    await session.send("Third [[reply:Still here.]]");
    await expect.poll(said).toContain("Still here.");
    const tasks = (await rpc("assistant", "ListTasks", { contextId: hello })).tasks as unknown[];
    expect(tasks.length).toBe(3);
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual(["Hello [[reply:Hi there.]]", "Another topic [[reply:Noted.]]"]);
    await page.click(
      `#conversations li[data-context-id="${another}"] button[aria-label^="Delete"]`,
    );
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual(["Hello [[reply:Hi there.]]"]);
    const gone = await fetch(`${server.url}/api/sessions/${another}`);
    expect(gone.status).toBe(404);
  });

  it("resumes a dropped stream from its last event id", async () => {
    // The first stream is cut after its first event (the Task), as a dropped connection would.
    let cut = false;
    const isSend = (url: URL) => url.pathname === "/agents/assistant/";
    await page.route(isSend, async (route) => {
      if (cut || !route.request().postData()?.includes("SendStreamingMessage"))
        return route.continue();
      cut = true;
      const response = await route.fetch();
      const first = (await response.text()).split("\n\n")[0];
      await route.fulfill({ response, body: `${first}\n\n` });
    });
    const resumed: Array<string | undefined> = [];
    page.on("request", (request) => {
      if (request.postData()?.includes("SubscribeToTask"))
        resumed.push(request.headers()["last-event-id"]);
    });
    await page.click("#new-chat");
    await session.send("Cut me off [[reply:Still arrived in full.]]");
    await page.waitForSelector(".agent-turn .status.state-completed");
    expect(await said()).toEqual([
      "Cut me off [[reply:Still arrived in full.]]",
      "Still arrived in full.",
    ]);
    expect(cut).toBe(true);
    expect(resumed).toEqual(["1"]);
    await page.unroute(isSend);
  });

  it("stops a running task, also one it follows after a reload", async () => {
    const slow = {
      text: "A long answer that takes its time. ".repeat(20),
      delayMs: 150,
      chunkSize: 2,
    };
    await page.click("#new-chat");
    await session.send(`Take your time ${await session.scenario("console-stop", [slow])}`);
    await page.waitForSelector("#stop:not([hidden])");
    await page.waitForFunction(
      () => (document.querySelector(".agent-turn .answer")?.textContent ?? "").length > 0,
    );
    await page.screenshot({ path: join(shots, "running.png") });
    await page.click("#stop");
    await page.waitForSelector(".agent-turn .status.state-canceled");
    expect(await page.isVisible("#stop")).toBe(false);
    const [first] = (await rpc("assistant", "ListTasks", { contextId: await activeContext() }))
      .tasks as Array<{ status: { state: string } }>;
    expect(first?.status.state).toBe("TASK_STATE_CANCELED");

    await session.send(`Once more ${await session.scenario("console-stop-2", [slow])}`);
    await page.waitForFunction(
      () =>
        (document.querySelector(".agent-turn:last-child .answer")?.textContent ?? "").length > 0,
    );
    await page.reload();
    await page.waitForSelector(".agent-turn:last-child .status.busy");
    const before =
      (await page.locator(".agent-turn").last().locator(".answer").textContent()) ?? "";
    // Followed live: the answer keeps growing after the reload.
    await page.waitForFunction(
      (length) =>
        (document.querySelector(".agent-turn:last-child .answer")?.textContent ?? "").trim()
          .length > length,
      before.trim().length,
    );
    await page.focus("#prompt");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".agent-turn:last-child .status.state-canceled");
    expect(await page.title()).toBe("A2A edge harness console");
    expect(session.errors).toEqual([]);
  });

  it("shows a declined request's reason on its status line, live and after a reload", async () => {
    // test/fake-model/recorded/refusal.sse: stop_reason "refusal" with stop_details.
    const marker = await session.scenario("console-refusal", [{ recorded: "refusal" }]);
    await page.click("#new-chat");
    await session.send(`Write an exploit ${marker}`);
    await page.waitForSelector(".agent-turn .status.state-rejected");
    const live = await transcriptOf(page);
    expect(live[1]).toMatchObject({
      said: "",
      status: "rejected: This request was declined because it could enable cyber harm.",
    });
    await page.reload();
    await expect.poll(() => transcriptOf(page)).toEqual(live);
    expect(session.errors).toEqual([]);
  });
});
