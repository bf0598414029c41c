/**
 * Distribution end to end: two `wrangler dev` instances over one local state directory (so they
 * share the R2 bucket and D1, as two deployments on one account share a bucket), each with its
 * own Durable Objects (another Worker name). Instance A serves every
 * agent; instance B runs its researcher remotely on A (`DISTRIBUTED_AGENTS=researcher`). The same
 * delegation scenario run in-process on A and distributed on B gives the same result, the shared
 * scratchpad included (both sides see the same principal: the shared A2A_API_KEY, which B's
 * registry entry sends); B's /health/deep reports A reachable; ENABLE_<NAME>=false removes an
 * agent.
 */
import type { Client } from "@a2a-js/sdk/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { taskInput, toolTurn as tool } from "../helpers/turns.ts";
import { asTask, bearerClients, stateOf, textRequest, waitForState } from "./client.ts";
import type { DevServer } from "./dev-server.ts";
import { type DistributedPair, startDistributedPair } from "./distributed-pair.ts";
import { addScenario, lastToolResults } from "./scenarios.ts";

let pair: DistributedPair;
const SHARED_KEY = "e2e-shared-key";

/** A client that calls with the shared key. */
const keyed = () => bearerClients(SHARED_KEY);
let a: DevServer;
let b: DevServer;

const scenario = (turns: Turn[]) => addScenario(pair.harness.fake.store, turns);
const toolResults = (scenarioId: string) => lastToolResults(pair.harness.fake.store, scenarioId);

/** One delegation: the researcher writes to the scratchpad, the parent reads it back. */
async function delegate(client: Client): Promise<{ state: string; results: string[] }> {
  const child = scenario([
    tool("scratch_write", { path: "facts.md", content: "The answer is 42." }),
    { text: "Wrote facts.md." },
  ]);
  const parent = scenario([
    tool("task", taskInput("researcher", "find the answer", `Find the answer. ${child.marker}`)),
    tool("scratch_read", { path: "facts.md" }),
    { text: "Done." },
  ]);
  // Sent to return at once, then read until it ends: no request is held open across the whole
  // delegation (and the other instance's) on a loaded machine.
  const sent = asTask(
    await client.sendMessage(textRequest(`delegate ${parent.marker}`, { returnImmediately: true })),
  );
  const task = await waitForState(client, sent.id, "TASK_STATE_COMPLETED", 120_000).catch(
    async () => asTask(await client.getTask({ tenant: "", id: sent.id })),
  );
  return { state: stateOf(task), results: toolResults(parent.id) };
}

beforeAll(async () => {
  // A serves every agent; B, on the same state and model, runs its researcher on A.
  pair = await startDistributedPair(
    { MODEL_IDLE_TIMEOUT_MS: "3000", MODEL_RETRY_BASE_MS: "20", A2A_API_KEY: SHARED_KEY },
    { ENABLE_DEEP_THINKER: "false", ADMIN_API_KEY: "e2e-admin" },
  );
  ({ a, b } = pair);
});

// A failed test shows what the servers logged as errors (the Worker's log lines reach output()).
afterEach(({ task }) => {
  if (task.result?.state !== "fail") return;
  for (const [name, server] of [
    ["A", a],
    ["B", b],
  ] as const) {
    const errors = (server?.output() ?? "").split("\n").filter((l) => /error|Error/.test(l));
    console.log(`server ${name} errors:\n${errors.slice(-40).join("\n")}`);
  }
});

afterAll(async () => {
  await pair?.stop();
});

describe("distributed sub-agents across two wrangler dev instances", () => {
  it("gives the same result in-process and distributed, scratchpad included", async () => {
    const local = await delegate(await keyed().createFromUrl(a.url));
    const remote = await delegate(await keyed().createFromUrl(b.url));
    expect(local.state).toBe("TASK_STATE_COMPLETED");
    expect(remote.state).toBe("TASK_STATE_COMPLETED");
    expect(local.results).toEqual([
      "Wrote facts.md.",
      expect.stringContaining("The answer is 42."),
    ]);
    expect(remote.results).toEqual(local.results);
  });

  it("reports the remote agent's reachability on /health/deep", async () => {
    const response = await fetch(`${b.url}/health/deep`, {
      headers: { Authorization: "Bearer e2e-admin" },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      ok: boolean;
      distributed: string[];
      agents: Array<{ name: string; reachable: boolean; distributed: boolean }>;
    };
    expect(body).toMatchObject({
      ok: true,
      distributed: ["researcher"],
      agents: [{ name: "researcher", reachable: true, distributed: true }],
    });
  });

  it("removes an agent switched off with ENABLE_<NAME>=false", async () => {
    const listing = (await (await fetch(`${b.url}/agents`)).json()) as {
      agents: Array<{ name: string }>;
    };
    expect(listing.agents.map((x) => x.name)).not.toContain("deep-thinker");
    const card = await fetch(`${b.url}/agents/deep-thinker/.well-known/agent-card.json`);
    expect(card.status).toBe(404);
  });
});
