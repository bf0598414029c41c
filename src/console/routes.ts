/**
 * The web console: `GET /console` (the page, from the Worker) and its script and stylesheet under
 * content-hashed URLs, static assets Cloudflare serves before the Worker runs (scripts/
 * build-assets.ts: cached for a year, nosniff; the page is revalidated). The page
 * talks to the same A2A endpoints and REST API as any client, with the token the person enters.
 * Its CSP allows only its own script and styles, images of its own (and `data:` URLs: the Files
 * panel's image previews) and of the origins of the agents' https icons, and Trusted Types limit
 * HTML insertion to the console's Markdown renderer (policy "console-markdown"). The markup's words are English; the script translates them.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { currentAgents } from "../agents/overrides.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { CONSOLE_HASH } from "./assets.generated.ts";

/** An origin that may stand in a CSP source list as it is: https, a DNS name, a port. */
const PLAIN_ORIGIN = /^https:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/**
 * The origins of the agents' https icons (the only images from elsewhere the page may load).
 * An origin that is not plainly scheme, host and port (a host may hold `;` or `*` after URL
 * parsing) is left out: its icon does not show, and the policy cannot be widened by a file.
 */
export function iconOrigins(icons: ReadonlyArray<string | null>): string[] {
  const origins = new Set<string>();
  for (const icon of icons) {
    if (!icon?.startsWith("https://")) continue;
    let origin: string;
    try {
      origin = new URL(icon).origin;
    } catch {
      continue;
    }
    if (PLAIN_ORIGIN.test(origin)) origins.add(origin);
  }
  return [...origins].sort();
}

function securityHeaders(): Record<string, string> {
  const images = [
    "'self'",
    "data:",
    ...iconOrigins(
      currentAgents()
        .list()
        .map((a) => a.icon),
    ),
  ];
  return {
    "Content-Security-Policy": `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src ${images.join(" ")}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types console-markdown`,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };
}

/** The header: who is signed in, the sign-in form, the language. */
const topBar = () => html`<header class="top">
      <button id="menu" class="secondary narrow-only" type="button" aria-expanded="false" aria-controls="sidebar"><span data-i18n="conversations">Conversations</span></button>
      <h1>A2A edge harness</h1>
      <span id="who" role="status">…</span>
      <form id="signin" class="inline" hidden>
        <label for="token" data-i18n="token">Token</label>
        <input id="token" type="password" autocomplete="off" placeholder="a2a_…" required />
        <button type="submit" data-i18n="signIn">Sign in</button>
      </form>
      <button id="signout" class="secondary" type="button" data-i18n="signOut" hidden>Sign out</button>
      <label class="sr-only" for="lang" data-i18n="language">Language</label>
      <select id="lang">
        <option value="en" lang="en">English</option>
        <option value="pt-BR" lang="pt-BR">Português (Brasil)</option>
      </select>
    </header>`;

/** The sidebar: the agents and the conversations. */
const sidebar =
  () => html`<nav id="sidebar" class="panel sidebar" aria-label="Agents and conversations" data-i18n-aria-label="sidebar">
        <h2 id="roster-title" data-i18n="agents">Agents</h2>
        <ul id="roster" aria-labelledby="roster-title"></ul>
        <div class="list-head">
          <h2 id="conversations-title" data-i18n="conversations">Conversations</h2>
          <button id="new-chat" class="secondary" type="button"><span data-i18n="newChat">New</span></button>
        </div>
        <label class="sr-only" for="conversation-search" data-i18n="searchConversations">Search conversations</label>
        <input id="conversation-search" type="search" autocomplete="off" placeholder="Search conversations" data-i18n-placeholder="searchConversations" />
        <ul id="conversations" aria-labelledby="conversations-title"></ul>
      </nav>`;

/** The conversation: its heading, the transcript and the composer. */
const chat = () => html`<main class="panel chat" aria-labelledby="agent-name">
        <div class="chat-head">
          <div class="heading">
            <div class="agent-title"><span id="agent-icon"></span><h2 id="agent-name">…</h2></div>
            <p id="conversation-title" class="muted"></p>
          </div>
          <details id="agent-about">
            <summary data-i18n="aboutAgent">About this agent</summary>
            <div id="agent-card"></div>
          </details>
        </div>
        <div id="transcript" role="region" aria-label="Transcript" data-i18n-aria-label="transcript" tabindex="0"></div>
        <form id="composer">
          <p id="activity" class="activity" hidden><span id="activity-text"></span></p>
          <div id="mentions" class="mentions" role="group" aria-label="Agents to write to" data-i18n-aria-label="mentionList" hidden></div>
          <ul id="attachments" class="attachments" aria-label="Attached files" data-i18n-aria-label="attachedFiles" hidden></ul>
          <div class="composer-row">
            <label class="sr-only" for="prompt" data-i18n="message">Message</label>
            <textarea id="prompt" rows="2" placeholder="Message the agent, or @name another one" data-i18n-placeholder="messagePlaceholder" aria-describedby="composer-hint"></textarea>
            <input id="attach-input" type="file" multiple hidden />
            <button id="attach" class="secondary" type="button" title="Attach files" aria-label="Attach files" data-i18n-title="attach" data-i18n-aria-label="attach"></button>
            <button id="voice" class="secondary" type="button" aria-pressed="false" title="Voice input" aria-label="Voice input" data-i18n-title="voice" data-i18n-aria-label="voice" hidden></button>
            <button id="stop" class="danger" type="button" hidden><span data-i18n="stop">Stop</span></button>
            <button id="send" type="submit"><span data-i18n="send">Send</span></button>
          </div>
          <p id="composer-hint" class="hint muted" data-i18n="composerHint">Enter sends · Shift+Enter adds a line · @name writes to another agent · drop files to attach them · Esc stops the running task</p>
        </form>
        <div id="announcer" class="sr-only" role="status" aria-live="polite"></div>
      </main>`;

/** The side panel: the task inspector, files, state and raw JSON. */
const inspector =
  () => html`<aside class="panel inspector" aria-label="Task inspector, files, state and raw JSON" data-i18n-aria-label="sidePanel">
        <div id="side-tabs" class="tabs" role="tablist" aria-label="Task inspector, files, state and raw JSON" data-i18n-aria-label="sidePanel">
          <button id="tab-inspector" type="button" role="tab" aria-controls="inspector" aria-selected="true" data-i18n="inspector">Task inspector</button>
          <button id="tab-files" type="button" role="tab" aria-controls="files-pane" aria-selected="false" tabindex="-1" data-i18n="files">Files</button>
          <button id="tab-state" type="button" role="tab" aria-controls="state-pane" aria-selected="false" tabindex="-1" data-i18n="state">State</button>
          <button id="tab-raw" type="button" role="tab" aria-controls="raw-pane" aria-selected="false" tabindex="-1" data-i18n="raw">Raw</button>
        </div>
        <section id="inspector" class="pane" role="tabpanel" aria-labelledby="tab-inspector">
          <form id="inspect-form" class="inline">
            <label for="inspect-id" data-i18n="taskId">Task id</label>
            <input id="inspect-id" type="text" />
            <button type="submit" data-i18n="open">Open</button>
          </form>
          <h3 data-i18n="conversationTasks">Tasks in this conversation</h3>
          <ul id="tasks"></ul>
          <div id="inspector-body"></div>
        </section>
        <section id="files-pane" class="pane" role="tabpanel" aria-labelledby="tab-files" hidden></section>
        <section id="state-pane" class="pane" role="tabpanel" aria-labelledby="tab-state" hidden></section>
        <section id="raw-pane" class="pane" role="tabpanel" aria-labelledby="tab-raw" hidden></section>
      </aside>`;

/** The console's page: its parts in place. */
function page() {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>A2A edge harness console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/console/${CONSOLE_HASH}/console.css" />
    <script type="module" src="/console/${CONSOLE_HASH}/console.js"></script>
  </head>
  <body>
    <a class="skip" href="#prompt" data-i18n="skip">Skip to the message box</a>
    ${topBar()}
    <div class="layout">
      ${sidebar()}
      ${chat()}
      ${inspector()}
    </div>
  </body>
</html>`;
}

/** The console routes. */
export function consoleRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/console", async (c) =>
    c.html(await page(), 200, { ...securityHeaders(), "Cache-Control": "no-cache" }),
  );
  app.get("/console/", (c) => c.redirect("/console", 308));
  return app;
}
