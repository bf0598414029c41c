/**
 * The web console in headless Chromium (Debian's chromium, driven by playwright-core) against
 * `wrangler dev` with auth on, signed in: its script and stylesheet (static assets), the roster, a streamed answer with its plan (a delegated
 * step tagged with its agent) and tool events, a line typed while a task works sent to it as a
 * live message, an input-required form (and the same conversation
 * rebuilt after a reload), the inspector with raw events, hostile Markdown rendered inert, the
 * server's list of the user's conversations in a browser that kept none, and the roster following
 * agent changes live. Screenshots go to test-results/console/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ListTasksRequest } from "@a2a-js/sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askChoice, taskInput, textToolTurn } from "../helpers/turns.ts";
import { servedAgents } from "./agent-set.ts";
import { transcriptOf } from "./browser.ts";
import { answerOf, bearerClients } from "./client.ts";
import { type ConsoleSession, consoleSessionOn } from "./console-session.ts";
import type { DevServer } from "./dev-server.ts";
import { HOSTILE_MARKDOWN, inertAnswer } from "./hostile-markdown.ts";
import { ROOT } from "./processes.ts";
import { sharedScriptedHarness } from "./shared-harness.ts";
import { addUser } from "./users.ts";

const shots = join(ROOT, "test-results", "console");

let session: ConsoleSession;
let server: DevServer;
let page: Page;
let token: string;

const lastTurn = () => page.locator(".agent-turn").last();
const lastAnswer = async () => ((await lastTurn().locator(".answer").textContent()) ?? "").trim();

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  const harness = await sharedScriptedHarness({ AUTH_REQUIRED: "true" });
  session = await consoleSessionOn(harness, harness.release);
  ({ page } = session);
  ({ server } = session.harness);
  token = (await addUser(server, "console-user")) as string;
  expect(token).toBeDefined();
});

afterAll(async () => {
  await session?.stop();
});

describe("the web console, signed in", () => {
  it("loads its script and stylesheet as static assets: hashed, immutable, nosniff", async () => {
    const html = await (await fetch(`${server.url}/console`)).text();
    const urls = [
      ...html.matchAll(/(?:src|href)="(\/console\/[0-9a-f]{12}\/console\.(?:js|css))"/g),
    ];
    expect(urls.map((m) => m[1]?.split(".").pop())).toEqual(["css", "js"]);
    for (const [, path] of urls) {
      const asset = await fetch(`${server.url}${path}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(
        path?.endsWith(".js") ? /^(text|application)\/javascript/ : /^text\/css/,
      );
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
      const body = await asset.text();
      // One bundle each: no imports left to fetch; the script carries markdown-it's licence.
      if (path?.endsWith(".js")) {
        expect(body).toContain("SendStreamingMessage");
        expect(body).toContain("console-markdown");
        expect(body).toMatch(/markdown-it/i);
        expect(body).not.toMatch(/^\s*import\s/m);
      } else {
        expect(body).toMatch(/prefers-color-scheme:\s*dark/);
        expect(body).not.toMatch(/@import/);
      }
    }
  });

  it("asks for a token when auth is on, then loads the roster", async () => {
    await page.goto(`${server.url}/console`);
    await expect.poll(() => page.textContent("#who")).toBe("sign in with a token");
    expect(await page.isVisible("#signin")).toBe(true);
    await page.fill("#token", token);
    await page.click("#signin button[type=submit]");
    await expect.poll(() => page.textContent("#who")).toBe("signed in as console-user");
    await expect
      .poll(() => page.$$eval("#roster button", (b) => b.map((x) => x.dataset.agent)))
      .toEqual(servedAgents());
    await expect
      .poll(() => page.getAttribute('#roster button[data-agent="assistant"]', "aria-pressed"))
      .toBe("true");
    expect(await page.textContent("#agent-name")).toBe("assistant");
    await expect.poll(() => page.textContent("#conversations")).toBe("No conversations yet.");
    // The only error so far is the browser's note of the 401 that asked for the token.
    expect(session.errors).toEqual([
      "Failed to load resource: the server responded with a status of 401 (Unauthorized)",
    ]);
    session.errors.length = 0;
  });

  it("follows agent changes in the roster without a reload: an upload, then a drop", async () => {
    const admin = /Authorization: Bearer (dev-admin-\S+)/.exec(server.output())?.[1] as string;
    const identity = (method: string, body?: string) =>
      fetch(`${server.url}/api/admin/agents/console-extra/identity`, {
        method,
        headers: { Authorization: `Bearer ${admin}` },
        ...(body ? { body } : {}),
      });
    const roster = () => page.$$eval("#roster button", (b) => b.map((x) => x.dataset.agent));
    const text =
      "---\nname: console-extra\ndescription: Uploaded while the console was open.\n---\nYou help.\n";
    expect((await identity("PUT", text)).status).toBe(200);
    await expect.poll(roster).toEqual([...servedAgents(), "console-extra"].sort());
    expect(await page.textContent('#roster button[data-agent="console-extra"]')).toContain(
      "Uploaded while the console was open.",
    );
    // The chosen agent stays chosen.
    expect(await page.getAttribute('#roster button[data-agent="assistant"]', "aria-pressed")).toBe(
      "true",
    );
    expect((await identity("DELETE")).status).toBe(204);
    await expect.poll(roster).toEqual(servedAgents());
    expect(session.errors).toEqual([]);
  });

  it("streams an answer and shows the plan and tool events as they happen", async () => {
    const marker = await session.scenario("console-plan", [
      textToolTurn("write_todos", {
        todos: [
          { content: "Read the brief", status: "completed" },
          { content: "Draft the answer", status: "in_progress" },
          { content: "[researcher] Check the sources", status: "pending" },
        ],
      }),
      {
        text: "Here is the plan, written out slowly so you can watch it arrive piece by piece.",
        delayMs: 40,
        chunkSize: 3,
      },
    ]);
    await session.send(`Make a plan ${marker}`);
    await page.waitForSelector('.agent-turn .event[data-kind="plan"]');
    // Text is on the page while the task is still working: it streams, and Stop is offered.
    await page.waitForFunction(() => {
      const turn = Array.from(document.querySelectorAll(".agent-turn")).at(-1);
      const text = turn?.querySelector(".answer")?.textContent ?? "";
      return text.length > 0 && turn?.querySelector(".status.busy") !== null;
    });
    expect(await page.isVisible("#stop")).toBe(true);
    await page.waitForSelector(".agent-turn .status.state-completed");
    expect(await page.isVisible("#stop")).toBe(false);
    expect(await lastAnswer()).toBe(
      "Here is the plan, written out slowly so you can watch it arrive piece by piece.",
    );
    expect(await lastTurn().locator('.event[data-kind="tool_call"]').count()).toBe(1);
    // A delegated step carries the tag of its agent; the planner's own steps carry none.
    expect(await lastTurn().locator(".plan li").allTextContents()).toEqual([
      "done: Read the brief",
      "in progress: Draft the answer",
      "to do: [researcher] Check the sources",
    ]);
    expect(await lastTurn().locator(".plan li .owner").allTextContents()).toEqual([
      "[researcher] ",
    ]);
    // Icons are inline SVG that takes space, never a font glyph.
    const icons = await lastTurn()
      .locator(".event > .icon")
      .evaluateAll((nodes) =>
        nodes.map((n) => `${n.tagName}:${Math.round(n.getBoundingClientRect().width)}`),
      );
    expect(icons.length).toBeGreaterThan(0);
    for (const shown of icons) expect(shown).toMatch(/^svg:1[0-9]$/);
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual([`Make a plan ${marker}`]);
    await page.screenshot({ path: join(shots, "chat.png") });
  });

  it("answers an input-required form, and a reload rebuilds the conversation", async () => {
    const marker = await session.scenario("console-form", [
      textToolTurn(
        "ask_user",
        askChoice("Which day should the report go out?", "day", ["monday", "friday"]),
      ),
      { text: "Scheduled for **friday**." },
    ]);
    await page.click("#new-chat");
    expect(await page.textContent("#conversation-title")).toBe("New conversation");
    await page.fill("#prompt", `Schedule the report ${marker}`);
    await page.click("#composer button[type=submit]");
    await page.waitForSelector(".answer-form select[name=day]");
    expect(await page.textContent(".agent-turn .status.state-input-required")).toContain(
      "Which day should the report go out?",
    );
    await page.screenshot({ path: join(shots, "form.png") });
    await page.selectOption(".answer-form select[name=day]", "friday");
    await page.click(".answer-form button[type=submit]");
    await expect.poll(lastAnswer).toBe("Scheduled for friday.");
    expect(await lastTurn().locator(".answer strong").textContent()).toBe("friday");
    await page.waitForSelector(".agent-turn:last-child .status.state-completed");
    const live = await transcriptOf(page);
    expect(live.map((t) => t.said)).toEqual([
      `Schedule the report ${marker}`,
      "",
      '{"day":"friday"}',
      "Scheduled for friday.",
    ]);
    await page.reload();
    expect(live[1]?.status).toBe("asked: Which day should the report go out?");
    await expect.poll(() => transcriptOf(page)).toEqual(live);
    expect(await page.locator(".answer-form").count()).toBe(0);
  });

  it("opens the inspector: status, usage, artifacts, history, the raw event log and the prompt", async () => {
    await lastTurn().locator("text=inspect task").click();
    await page.waitForSelector("#inspector-body table.log tbody tr");
    const facts = await page.locator("#inspector-body .facts").textContent();
    expect(facts).toContain("completed");
    expect(facts).toMatch(/\d+ in · \d+ out/);
    const rows = page.locator("#inspector-body table.log tbody tr");
    expect(await rows.count()).toBeGreaterThan(3);
    expect(await page.locator("#inspector-body table.log").textContent()).toContain(
      "input-required",
    );
    await rows.first().locator("summary").click();
    expect(JSON.parse((await rows.first().locator("pre").textContent()) ?? "")).toHaveProperty(
      "task.status.state",
      "TASK_STATE_SUBMITTED",
    );
    expect(await page.locator("#inspector-body details").first().textContent()).toContain(
      "Scheduled for **friday**.",
    );
    await expect.poll(() => page.locator("#tasks li").count()).toBe(1);
    // What the model saw: the newest request open, its system prompt, tools and messages.
    const newest = page.locator("#inspector-body details.prompt-request").first();
    expect(await newest.getAttribute("open")).not.toBeNull();
    expect(await newest.locator("h4").first().textContent()).toBe("system");
    expect(await newest.textContent()).toContain("Schedule the report");
    expect(await page.locator("#inspector-body .prompt-title").textContent()).toMatch(
      /^What the model saw \(latest \d+ requests\)$/,
    );
    await page.screenshot({ path: join(shots, "inspector.png") });
  });

  it("renders Markdown, and hostile Markdown stays text (live and restored)", async () => {
    const marker = await session.scenario("console-hostile", [{ text: HOSTILE_MARKDOWN }]);
    await page.click("#new-chat");
    await session.send(`Show me the report ${marker}`);
    await page.waitForSelector(".agent-turn .status.state-completed");
    await inertAnswer(page, lastTurn());
    await page.reload();
    await page.waitForSelector(".agent-turn .status.state-completed");
    await inertAnswer(page, lastTurn());
    expect(session.errors).toEqual([]);
  });

  it("lists the user's conversations from the server in a browser that kept none", async () => {
    await page.evaluate(() => localStorage.removeItem("a2a-console:conversations:console-user"));
    await page.reload();
    // The server's list (newest first) with the titles fetched from each conversation.
    await expect
      .poll(() => page.locator("#conversations .title").allTextContents())
      .toEqual([
        expect.stringMatching(/^Show me the report/),
        expect.stringMatching(/^Schedule the report/),
        expect.stringMatching(/^Make a plan/),
      ]);
    // No conversation was open in this browser: a new one, until one is picked.
    expect(await page.textContent("#conversation-title")).toBe("New conversation");
    await page.click("#conversations li:nth-child(3) button.open");
    await page.waitForSelector('.agent-turn .event[data-kind="plan"]');
    expect(await lastAnswer()).toBe(
      "Here is the plan, written out slowly so you can watch it arrive piece by piece.",
    );
    expect(
      await page.getAttribute("#conversations li:nth-child(3) button.open", "aria-current"),
    ).toBe("true");
    // Readable in dark mode too; and on a phone-sized screen, the list behind a button.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(shots, "dark.png") });
    await page.setViewportSize({ width: 420, height: 800 });
    expect(await page.isVisible("#sidebar")).toBe(false);
    await page.screenshot({ path: join(shots, "narrow.png") });
    await page.click("#menu");
    expect(await page.isVisible("#conversations")).toBe(true);
    await page.screenshot({ path: join(shots, "narrow-list.png") });
    expect(session.errors).toEqual([]);
  });

  it("shows an auth-required message with an answer box, live and restored, and resumes", async () => {
    const marker = await session.scenario("console-auth", [
      textToolTurn("ask_user", {
        question: "Sign in at https://login.example/start",
        authorization: true,
      }),
      { text: "Signed in, report sent." },
    ]);
    // After the narrow, dark screenshots above: back to a desktop screen.
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    await page.click("#new-chat");
    await page.fill("#prompt", `Send the report ${marker}`);
    await page.click("#composer button[type=submit]");
    await page.waitForSelector(".agent-turn .status.state-auth-required");
    expect(await page.textContent(".agent-turn .status.state-auth-required")).toContain(
      "https://login.example/start",
    );
    await page.waitForSelector(".answer-form textarea[name=answer]");
    await page.reload();
    await page.waitForSelector(".agent-turn .status.state-auth-required");
    await page.fill(".answer-form textarea[name=answer]", "I signed in.");
    await page.click(".answer-form button[type=submit]");
    await expect.poll(lastAnswer).toBe("Signed in, report sent.");
    await page.waitForSelector(".agent-turn:last-child .status.state-completed");
    expect(session.errors).toEqual([]);
  });

  it("opens the waterfall of a delegating task: its sub-agent's rows nest and fold", async () => {
    const child = await session.scenario("console-wf-child", [{ text: "Drafted." }]);
    const marker = await session.scenario("console-wf", [
      textToolTurn("task", taskInput("writer", "draft", `Draft. ${child}`)),
      { text: "The writer drafted it." },
    ]);
    // After the narrow, dark screenshots: a wide screen again.
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.click("#new-chat");
    await session.send(`Get a draft ${marker}`);
    await page.waitForSelector(".agent-turn .status.state-completed");
    await lastTurn().locator("text=inspect task").click();
    const sub = page.locator("#inspector-body .waterfall details.wf-subagent");
    await sub.first().waitFor();
    expect(await sub.count()).toBe(1);
    expect(await sub.locator(".wf-name").first().textContent()).toBe("invoke_agent writer");
    // The sub-agent sits under the delegating tool call, with its own model call.
    const rows = await page.locator("#inspector-body .waterfall .wf-name").allTextContents();
    expect(rows[0]).toBe("invoke_agent assistant");
    expect(rows).toContain("execute_tool task");
    expect(rows.filter((r) => r.startsWith("chat ")).length).toBe(3);
    expect(
      await page.locator("#inspector-body .wf-row-model .wf-detail").first().textContent(),
    ).toMatch(/\d+ in · \d+ out · \d+ cache read · ~\$\d/);
    // Folding the sub-agent hides its rows.
    await sub.locator("summary").first().click();
    expect(await sub.first().evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await page.screenshot({ path: join(shots, "waterfall.png") });
    expect(session.errors).toEqual([]);
  });

  it("sends a line typed while the task works to that task, shown in its turn", async () => {
    // A new conversation: the scripted model picks turn i for a request holding i assistant
    // messages, so an older conversation's turns would skip this task's slow first turn.
    const id = `console-steer-${crypto.randomUUID()}`;
    const marker = await session.scenario(id, [
      // At least 10 s of streaming (50 chunks, 200 ms apart): the task works while the line goes.
      { text: "w".repeat(100), chunkSize: 2, delayMs: 200, delayAttempts: [1] },
      { text: "Steered answer." },
    ]);
    await page.click("#new-chat");
    await session.send(`Start slowly ${marker}`);
    await page.waitForFunction(() => {
      const turn = Array.from(document.querySelectorAll(".agent-turn")).at(-1);
      const text = turn?.querySelector(".answer")?.textContent ?? "";
      return text.length > 0 && turn?.querySelector(".status.state-working") !== null;
    });
    await session.send("make it shorter");
    await page.waitForSelector('.agent-turn .event[data-kind="live"]');
    await page.waitForSelector(".agent-turn:last-child .status.state-completed");
    // The task's next model request carries the line; no second task asked the model anything.
    const requests = session.harness.fake.store.requests(id);
    expect(requests).toHaveLength(2);
    // The turn shows the answer the task ended with: "Steered answer.", the second turn's. (Should
    // the first turn's call be retried after the line came, by a restart under load, the retried
    // call carries the line and the scenario answers it with its first turn.)
    const contextId = await page
      .locator('#conversations li:has(button[aria-current="true"])')
      .getAttribute("data-context-id");
    const a2a = await bearerClients(token).createFromUrl(`${server.url}/agents/assistant/`);
    const listed = await a2a.listTasks(
      ListTasksRequest.fromJSON({ contextId, includeArtifacts: true }),
    );
    const answer = listed.tasks[0] ? answerOf(listed.tasks[0]) : "";
    expect(answer.length).toBeGreaterThan(0);
    expect(await lastAnswer()).toContain(answer.trim().slice(-8));
    if (requests.at(-1)?.turnIndex === 1) expect(answer).toContain("Steered answer.");
    expect(JSON.stringify(requests[0]?.body)).not.toContain("make it shorter");
    expect(JSON.stringify(requests[1]?.body)).toContain("make it shorter");
    // One user bubble and one turn, live and rebuilt from the server: the same task.
    for (const shown of ["live", "restored"]) {
      if (shown === "restored") {
        await page.reload();
        await page.waitForSelector(".agent-turn .status.state-completed");
      }
      expect(await page.locator(".user-turn").count()).toBe(1);
      expect(await page.locator(".agent-turn").count()).toBe(1);
      expect(await lastTurn().locator('.event[data-kind="live"]').textContent()).toContain(
        "make it shorter",
      );
    }
    expect(session.errors).toEqual([]);
  });

  it("shows the answer once and a limit's note on the status line, live and restored", async () => {
    const answer = "Cut short here, in the middle of a thought";
    const marker = await session.scenario("console-note", [
      { text: answer, stopReason: "max_tokens", delayMs: 10, chunkSize: 5 },
    ]);
    const note = /^completed: The answer was cut off at the agent's output limit \(\d+ tokens\)\.$/;
    const statusLine = async () =>
      ((await lastTurn().locator(".status").textContent()) ?? "").trim();
    // Every text a status line shows while the task runs: the answer's echo must not be one.
    const shown: string[] = [];
    await page.exposeFunction("statusShown", (text: string) => shown.push(text));
    await page.click("#new-chat");
    await page.evaluate(() => {
      const report = (window as unknown as { statusShown(text: string): void }).statusShown;
      new MutationObserver(() => {
        for (const line of Array.from(document.querySelectorAll(".agent-turn .status")))
          report(line.textContent ?? "");
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await session.send(`Go on ${marker}`);
    await page.waitForSelector(".agent-turn .status.state-completed");
    expect(await lastAnswer()).toBe(answer);
    expect(await statusLine()).toMatch(note);
    expect(shown.filter((text) => text.includes("Cut short"))).toEqual([]);
    await page.reload();
    await page.waitForSelector(".agent-turn .status.state-completed");
    expect(await lastAnswer()).toBe(answer);
    expect(await statusLine()).toMatch(note);
  });
});
