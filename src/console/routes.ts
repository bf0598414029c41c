/**
 * The web console, served by the Worker itself: `GET /console` (the page) and its script and
 * stylesheet under content-hashed URLs (cached for a year; the page is revalidated). The page
 * talks to the same A2A endpoints and REST API as any client, with the token the person enters.
 * Its CSP allows only its own script and styles, images of its own and of the origins of the
 * agents' https icons, and Trusted Types limit HTML insertion to the console's Markdown renderer
 * (policy "console-markdown").
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { currentAgents } from "../agents/overrides.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { CONSOLE_CSS, CONSOLE_HASH, CONSOLE_JS } from "./assets.generated.ts";

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
    <a class="skip" href="#prompt">Skip to the message box</a>
    <header class="top">
      <button id="menu" class="secondary narrow-only" type="button" aria-expanded="false" aria-controls="sidebar">Conversations</button>
      <h1>A2A edge harness</h1>
      <span id="who" role="status">…</span>
      <form id="signin" class="inline" hidden>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" placeholder="a2a_…" required />
        <button type="submit">Sign in</button>
      </form>
      <button id="signout" class="secondary" type="button" hidden>Sign out</button>
    </header>
    <div class="layout">
      <nav id="sidebar" class="panel sidebar" aria-label="Agents and conversations">
        <h2 id="roster-title">Agents</h2>
        <ul id="roster" aria-labelledby="roster-title"></ul>
        <div class="list-head">
          <h2 id="conversations-title">Conversations</h2>
          <button id="new-chat" class="secondary" type="button">New</button>
        </div>
        <ul id="conversations" aria-labelledby="conversations-title"></ul>
      </nav>
      <main class="panel chat" aria-labelledby="agent-name">
        <div class="chat-head">
          <div class="heading">
            <h2 id="agent-name">…</h2>
            <p id="conversation-title" class="muted"></p>
          </div>
          <details id="agent-about">
            <summary>About this agent</summary>
            <div id="agent-card"></div>
          </details>
        </div>
        <div id="transcript" role="region" aria-label="Transcript" tabindex="0"></div>
        <form id="composer">
          <p id="activity" class="activity" hidden><span id="activity-text"></span></p>
          <div class="composer-row">
            <label class="sr-only" for="prompt">Message</label>
            <textarea id="prompt" rows="2" placeholder="Message the agent" aria-describedby="composer-hint"></textarea>
            <button id="stop" class="danger" type="button" hidden>Stop</button>
            <button id="send" type="submit">Send</button>
          </div>
          <p id="composer-hint" class="hint muted">Enter sends · Shift+Enter adds a line · Esc stops the running task</p>
        </form>
        <div id="announcer" class="sr-only" role="status" aria-live="polite"></div>
      </main>
      <aside class="panel inspector" aria-labelledby="inspector-title">
        <details id="inspector" open>
          <summary id="inspector-title">Task inspector</summary>
          <form id="inspect-form" class="inline">
            <label for="inspect-id">Task id</label>
            <input id="inspect-id" type="text" />
            <button type="submit">Open</button>
          </form>
          <h3>Tasks in this conversation</h3>
          <ul id="tasks"></ul>
          <div id="inspector-body"></div>
        </details>
      </aside>
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
  const asset = (body: string, type: string) =>
    new Response(body, {
      headers: {
        "Content-Type": type,
        "Cache-Control": "public, max-age=31536000, immutable",
        ETag: `"${CONSOLE_HASH}"`,
        "X-Content-Type-Options": "nosniff",
      },
    });
  app.get(`/console/:hash/console.js`, () => asset(CONSOLE_JS, "text/javascript; charset=utf-8"));
  app.get(`/console/:hash/console.css`, () => asset(CONSOLE_CSS, "text/css; charset=utf-8"));
  return app;
}
