// The agent roster kept live: `GET /api/events` (SSE, read with fetch so the token goes along)
// sends the roster when it connects and again after every agent change in the deployment (an
// identity uploaded or dropped, a reload, a broken file once the dev server restarts). A dropped
// stream is opened again after the server's `retry` delay; its first roster says what is there
// then, so nothing is missed while it was away. A refusal (401, 403) ends the watch.
import { auth } from "./api.js";
import { sseEvents } from "./sse.ts";

let watching = null;

/**
 * Calls `onRoster(roster)` with each roster the server sends (the `GET /agents` shape, with
 * `reason` and `agent`), until the next call of `watchAgents` replaces this watch.
 */
export function watchAgents(onRoster) {
  watching?.abort();
  const controller = new AbortController();
  watching = controller;
  const { signal } = controller;
  (async () => {
    let wait = 3000;
    while (!signal.aborted) {
      try {
        const token = auth.token;
        const response = await fetch("/api/events", {
          signal,
          headers: {
            Accept: "text/event-stream",
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
          },
        });
        if (response.status === 401 || response.status === 403) return;
        if (response.ok && response.body)
          for await (const { event, data } of sseEvents(response.body, (ms) => (wait = ms)))
            if (event === "agents") onRoster(JSON.parse(data));
      } catch {
        // The connection dropped (a restart, a deploy): try again below.
      }
      if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
}
