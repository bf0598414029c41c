/**
 * An invalid IDENTITY.md (here an uploaded one stored without the upload's check, as a version
 * skew would leave it) makes only that agent unavailable: it answers 503 naming the file, line,
 * column and field on every route; the other agents and the listing keep serving.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  checkAgentsNow,
  OVERRIDES_INDEX,
  OVERRIDES_RECHECK_MS,
  refreshAgents,
} from "../../src/agents/overrides.ts";
import type { AgentRegistry } from "../../src/agents/registry.ts";
import { sharedKey } from "../../src/store/r2-keys.ts";
import { fetchWorker, rpc, userMessage } from "../helpers/a2a.ts";
import { until } from "../helpers/until.ts";

const BROKEN = "---\nname: writer\nmaxTurns: lots\n---\nYou write.\n";
const WHY =
  "agents/writer/IDENTITY.md (uploaded):3:11: frontmatter.maxTurns: expected an integer between 1 and 500";

/** Waits until the registry, checked now each time, serves writer or not. */
const writerServed = (served: boolean) =>
  until(
    async () => (await checkAgentsNow(env)).has("writer"),
    (has) => has === served,
  );

async function breakWriter(): Promise<void> {
  await env.FILES.put(sharedKey("writer", "IDENTITY.md"), BROKEN);
  await env.FILES.put(OVERRIDES_INDEX, JSON.stringify({ writer: { updatedAt: "now" } }));
  await writerServed(false);
}

afterAll(async () => {
  await env.FILES.delete([sharedKey("writer", "IDENTITY.md"), OVERRIDES_INDEX]);
  await writerServed(true);
});

describe("a broken agent file", () => {
  it("makes that agent answer its error; the others serve", async () => {
    await breakWriter();
    const rpcCall = await fetchWorker("/agents/writer/", {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    });
    expect(rpcCall.status).toBe(503);
    expect(await rpcCall.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32000,
        message: `Agent 'writer' is unavailable: its IDENTITY.md is invalid: ${WHY}`,
      },
    });
    for (const path of ["/agents/writer/.well-known/agent-card.json", "/agents/writer/tasks"]) {
      const response = await fetchWorker(path, { headers: { "A2A-Version": "1.0" } });
      expect(response.status, path).toBe(503);
      expect(await response.json()).toMatchObject({
        error: { status: "UNAVAILABLE", message: expect.stringContaining(WHY) },
      });
    }
    const listing = (await (await fetchWorker("/agents")).json()) as {
      agents: Array<{ name: string }>;
      unavailable: Array<{ name: string; error: string }>;
    };
    expect(listing.agents.map((a) => a.name)).not.toContain("writer");
    expect(listing.unavailable).toEqual([{ name: "writer", error: WHY }]);
    const other = await rpc<{ task: { status: { state: string } } }>(
      "SendMessage",
      { message: userMessage("[[reply:still here]]") },
      { path: "/agents/researcher/" },
    );
    expect(other.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("is noticed beside the request that finds the check due, which the loaded registry serves", async () => {
    await env.FILES.delete([sharedKey("writer", "IDENTITY.md"), OVERRIDES_INDEX]);
    await writerServed(true); // the registry is loaded and checked now
    // The clock stands still while the file breaks, so nothing else in this isolate (a task
    // object's alarm) finds the check due and reloads; then it is due for this one call.
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    const handed: Promise<unknown>[] = [];
    let served: Promise<AgentRegistry>;
    try {
      await env.FILES.put(sharedKey("writer", "IDENTITY.md"), BROKEN);
      await env.FILES.put(OVERRIDES_INDEX, JSON.stringify({ writer: { updatedAt: "later" } }));
      clock.mockReturnValue(now + OVERRIDES_RECHECK_MS + 1_000);
      served = refreshAgents(env, (work) => handed.push(work));
    } finally {
      clock.mockRestore();
    }
    expect(handed).toHaveLength(1);
    expect((await served).has("writer")).toBe(true); // the registry the isolate had: no wait for R2
    await Promise.all(handed);
    expect((await refreshAgents(env)).has("writer")).toBe(false);
  });
});
