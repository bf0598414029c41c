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
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { toolTurn as tool } from "../helpers/turns.ts";
import { asTask, stateOf, textRequest, waitForState } from "./client.ts";
import {
  type DevServer,
  freePort,
  freshStateDir,
  type ScriptedHarness,
  startDevServer,
  startScriptedHarness,
} from "./dev-server.ts";

let harness: ScriptedHarness;
const SHARED_KEY = "e2e-shared-key";

/** A client that calls with the shared key. */
const keyed = () =>
  new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({
        fetchImpl: (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set("Authorization", `Bearer ${SHARED_KEY}`);
          return fetch(input, { ...init, headers });
        },
      }),
    ],
  });
let a: DevServer;
let b: DevServer;

function scenario(turns: Turn[]): { id: string; marker: string } {
  const id = `e2e-${crypto.randomUUID()}`;
  harness.fake.store.addScenario({ id, turns });
  return { id, marker: `[[scenario:${id}]]` };
}

/** The tool results of the last model request of a scenario. */
function toolResults(scenarioId: string): string[] {
  const last = harness.fake.store.requests(scenarioId).at(-1)?.body as {
    messages: Array<{ content: unknown }>;
  };
  const out: string[] = [];
  for (const m of last?.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content as Array<{ type: string; content?: string }>)
      if (block.type === "tool_result") out.push(block.content ?? "");
  }
  return out;
}

/** One delegation: the researcher writes to the scratchpad, the parent reads it back. */
async function delegate(client: Client): Promise<{ state: string; results: string[] }> {
  const child = scenario([
    tool("scratch_write", { path: "facts.md", content: "The answer is 42." }),
    { text: "Wrote facts.md." },
  ]);
  const parent = scenario([
    tool("task", {
      subagent_type: "researcher",
      description: "find the answer",
      prompt: `Find the answer. ${child.marker}`,
    }),
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
  const shared = freshStateDir();
  const common = {
    MODEL_IDLE_TIMEOUT_MS: "3000",
    MODEL_RETRY_BASE_MS: "20",
    A2A_API_KEY: SHARED_KEY,
  };
  // A serves every agent; B, on the same state and model, runs its researcher on A.
  harness = await startScriptedHarness(common, shared);
  a = harness.server;
  b = await startDevServer({
    port: await freePort(),
    persistDir: shared,
    // Another Worker name: B's Durable Objects keep their own SQLite files. Two workerd processes
    // on one object's file (the shared key's user object) meet SQLITE_BUSY; D1 and R2 stay shared.
    extraArgs: ["--name", "a2a-edge-harness-b"],
    vars: {
      ...harness.modelVars,
      ...common,
      A2A_AGENTS: JSON.stringify({
        researcher: {
          url: `${a.url}/agents/researcher/`,
          authSecret: "A2A_API_KEY",
        },
      }),
      DISTRIBUTED_AGENTS: "researcher",
      ENABLE_DEEP_THINKER: "false",
      ADMIN_API_KEY: "e2e-admin",
    },
  });
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
  await b?.stop();
  await harness?.stop();
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
