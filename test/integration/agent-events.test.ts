/**
 * Agent changes reach open event streams (GET /api/events): the roster on connecting, then after
 * an identity upload, a drop, and POST /api/admin/reload, which re-reads a change another isolate
 * left in R2 (here written straight to R2, a broken file among it) at once; admins only. A
 * caller holds at most 10 streams; a stream whose token is revoked ends with an error event.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { OVERRIDES_INDEX, reloadAgents } from "../../src/agents/overrides.ts";
import { revokeTokens } from "../../src/auth/users-store.ts";
import { REVOKED_ERROR } from "../../src/events/agent-events.ts";
import { sharedKey } from "../../src/store/r2-keys.ts";
import { fetchWorker } from "../helpers/a2a.ts";
import { callWorker, newUser } from "../helpers/as-user.ts";
import { sseEvents } from "../helpers/sse.ts";

type RosterEvent = {
  reason: string;
  agent?: string;
  agents: Array<{ name: string; version: string }>;
  unavailable?: Array<{ name: string; error: string }>;
};

const suffix = crypto.randomUUID().slice(0, 8);
const added = `ev-${suffix}`;
const broken = `evb-${suffix}`;

const identity = (name: string, version: string) =>
  `---\nname: ${name}\ndescription: An agent of the events test.\nversion: ${version}\n---\nYou help.\n`;

async function dropFromIndex(names: string[]): Promise<void> {
  const object = await env.FILES.get(OVERRIDES_INDEX);
  const index = object ? ((await object.json()) as Record<string, unknown>) : {};
  for (const name of names) delete index[name];
  await env.FILES.put(OVERRIDES_INDEX, JSON.stringify(index));
  await env.FILES.delete(names.map((name) => sharedKey(name, "IDENTITY.md")));
}

afterAll(async () => {
  await dropFromIndex([added, broken]);
  await reloadAgents(env);
});

describe("GET /api/events", () => {
  it("tells open streams every agent change: upload, reload (a broken file too), drop", async () => {
    const admin = await newUser("admin");
    const asAdmin = (path: string, init: RequestInit = {}) =>
      callWorker(path, {
        ...init,
        headers: { Authorization: `Bearer ${admin.token}`, ...(init.headers ?? {}) },
      });
    const response = await fetchWorker("/api/events");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = sseEvents(response);
    /** The next `agents` event for which `match` holds (other tests' changes are skipped). */
    const next = async (match: (e: RosterEvent) => boolean): Promise<RosterEvent> => {
      for (;;) {
        const { value, done } = await events.next();
        if (done) throw new Error("the stream ended");
        const event = JSON.parse(value.data) as RosterEvent;
        if (match(event)) return event;
      }
    };

    const connected = await next((e) => e.reason === "connected");
    expect(connected.agents.map((a) => a.name)).toContain("assistant");
    expect(connected.agents.map((a) => a.name)).not.toContain(added);

    const put = await asAdmin(`/api/admin/agents/${added}/identity`, {
      method: "PUT",
      body: identity(added, "1.2.3"),
    });
    expect(put.status).toBe(200);
    const uploaded = await next((e) => e.reason === "upload" && e.agent === added);
    expect(uploaded.agents).toContainEqual(
      expect.objectContaining({ name: added, version: "1.2.3" }),
    );

    // Another isolate's change, as R2 holds it: a file that does not parse, listed in the index.
    await env.FILES.put(
      sharedKey(broken, "IDENTITY.md"),
      `---\nname: ${broken}\nmaxTurns: lots\n---\nx\n`,
    );
    const index = (await (await env.FILES.get(OVERRIDES_INDEX))?.json()) as Record<string, unknown>;
    await env.FILES.put(
      OVERRIDES_INDEX,
      JSON.stringify({ ...index, [broken]: { updatedAt: new Date().toISOString() } }),
    );
    const versionBefore = (await env.FILES.head(OVERRIDES_INDEX))?.version;
    const reload = await asAdmin("/api/admin/reload", { method: "POST" });
    expect(reload.status).toBe(200);
    const answer = (await reload.json()) as {
      agents: string[];
      unavailable: Array<{ name: string; error: string }>;
      streamsTold: number;
    };
    expect(answer.agents).toContain(added);
    expect(answer.unavailable).toContainEqual(
      expect.objectContaining({
        name: broken,
        error: expect.stringContaining("frontmatter.maxTurns"),
      }),
    );
    expect(answer.streamsTold).toBeGreaterThanOrEqual(1);
    // The index was rewritten: every other isolate's 2-second check rebuilds its agents.
    expect((await env.FILES.head(OVERRIDES_INDEX))?.version).not.toBe(versionBefore);
    const reloaded = await next((e) => e.reason === "reload" && Boolean(e.unavailable?.length));
    expect(reloaded.unavailable).toContainEqual(
      expect.objectContaining({ name: broken, error: expect.stringContaining("maxTurns") }),
    );

    const dropped = await asAdmin(`/api/admin/agents/${added}/identity`, { method: "DELETE" });
    expect(dropped.status).toBe(204);
    const gone = await next((e) => e.reason === "delete" && e.agent === added);
    expect(gone.agents.map((a) => a.name)).not.toContain(added);
    await events.return(undefined);
  });

  it("needs credentials where the deployment is closed; reload is for admins only", async () => {
    expect((await callWorker("/api/events")).status).toBe(401);
    const user = await newUser();
    // A caller holds at most 10 streams (tabs, a CLI); the 11th waits for one to close.
    const headers = { Authorization: `Bearer ${user.token}` };
    const open: Response[] = [];
    for (let i = 0; i < 10; i++) open.push(await callWorker("/api/events", { headers }));
    expect(open.map((r) => r.status)).toEqual(Array(10).fill(200));
    const eleventh = await callWorker("/api/events", { headers });
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers.get("Retry-After")).toBe("30");
    await Promise.all(open.map((r) => r.body?.cancel()));
    const reload = await callWorker("/api/admin/reload", {
      method: "POST",
      headers: { Authorization: `Bearer ${user.token}` },
    });
    expect(reload.status).toBe(403);
  });

  it("ends an open stream with an error event once its token is revoked", async () => {
    const { id, token } = await newUser();
    const response = await callWorker("/api/events", {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const events = sseEvents(response);
    const first = await events.next();
    expect(JSON.parse(first.value?.data ?? "{}").reason).toBe("connected");
    await revokeTokens(env.DB, id);
    // Agent changes of other tests may come first; the stream then ends with the error.
    let last: { data: string } | undefined;
    for await (const event of events) last = event;
    expect(JSON.parse(last?.data ?? "{}")).toEqual(REVOKED_ERROR);
  }, 60_000);
});
