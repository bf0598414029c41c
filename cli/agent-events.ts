/**
 * The harness's agents kept current in `a2a chat`: `GET <harness>/api/events` (SSE, with the
 * token, which goes only to the harness's origin) stays open beside the conversation and is
 * reopened after a drop (the server's `retry` delay, 3 s); it sends the roster on connecting and
 * after every agent change (an identity uploaded or dropped, a reload, a broken file once the dev
 * server restarts). A harness that answers 401, 403 or 404 (an older one) is not asked again.
 * {@link describeChange} words what changed between two rosters in one line.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { sseEvents } from "../src/console/static/sse.ts";
import type { Http } from "./target.ts";

/** An `agents` event: the `GET /agents` roster with why it was sent. */
export interface Roster {
  reason: string;
  agent?: string;
  defaultAgent: string;
  agents: Array<{ name: string; description: string; version: string }>;
  unavailable?: Array<{ name: string; error: string }>;
}

/** Calls `onRoster` with each roster `harness` sends until `stop()`. */
export function watchAgents(
  http: Http,
  harness: string,
  onRoster: (roster: Roster) => void,
): { stop(): void } {
  const controller = new AbortController();
  const { signal } = controller;
  const run = async () => {
    let wait = 3_000;
    while (!signal.aborted) {
      try {
        const response = await http.fetch(`${harness}/api/events`, {
          signal,
          headers: { Accept: "text/event-stream" },
        });
        if ([401, 403, 404].includes(response.status)) return;
        if (response.ok && response.body)
          for await (const { event, data } of sseEvents(response.body, (ms) => {
            wait = ms;
          }))
            if (event === "agents") onRoster(JSON.parse(data) as Roster);
      } catch {
        // Dropped (a restart, a deploy) or stopped: the loop decides.
      }
      await sleep(wait, undefined, { signal }).catch(() => {});
    }
  };
  void run();
  return { stop: () => controller.abort() };
}

/** What changed from `before` to `after`, in one line; null when nothing did. */
export function describeChange(before: Roster, after: Roster): string | null {
  const served = (r: Roster) => new Map(r.agents.map((a) => [a.name, a]));
  const broken = (r: Roster) => new Map((r.unavailable ?? []).map((a) => [a.name, a.error]));
  const [was, now, wasBroken, nowBroken] = [
    served(before),
    served(after),
    broken(before),
    broken(after),
  ];
  const said: string[] = [];
  for (const [name, agent] of now) {
    const old = was.get(name);
    if (!old) said.push(`${name} added (v${agent.version})`);
    else if (old.version !== agent.version || old.description !== agent.description)
      said.push(`${name} updated (v${agent.version})`);
    else if (after.agent === name && after.reason === "upload") said.push(`${name} uploaded again`);
  }
  for (const [name, error] of nowBroken)
    if (wasBroken.get(name) !== error) said.push(`${name} unavailable: ${error}`);
  for (const name of new Set([...was.keys(), ...wasBroken.keys()]))
    if (!now.has(name) && !nowBroken.has(name)) said.push(`${name} removed`);
  return said.length > 0 ? `agents changed: ${said.join("; ")}` : null;
}

/** The roster as lines for `/agents`, `current` marked. */
export function rosterLines(roster: Roster, current: string): string {
  const lines = roster.agents.map(
    (a) => `${a.name === current ? "*" : " "} ${a.name} v${a.version}: ${a.description}`,
  );
  for (const a of roster.unavailable ?? []) lines.push(`! ${a.name} unavailable: ${a.error}`);
  return `${lines.join("\n")}\n`;
}
