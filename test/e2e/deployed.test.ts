/**
 * The deployed profile (`npm run dev -- --deployed`): the harness with wrangler.toml's own
 * settings, as `npm run deploy` ships them (closed to anonymous callers, rate limits, token
 * budgets and cron events at their defaults), under the local limit guard (Workers Paid's
 * limits). A user made the way an operator makes one (`npm run users -- add`) drives the main
 * paths with their token: A2A send, stream, get, list and cancel with the official SDK client, the
 * MCP and AG-UI faces once each, and a signed webhook that starts a task for them; the storage
 * meter (STORAGE_METER, which only observes) holds the object calls of a one-turn task. Stopping
 * the server fails the file if it went over one of Cloudflare's limits (dev-server.ts).
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ListTasksRequest, type StreamResponse } from "@a2a-js/sdk";
import type { Client as A2AClient } from "@a2a-js/sdk/client";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "../../src/model/scripted/turn.ts";
import { callTool } from "../helpers/mcp-calls.ts";
import {
  answerOf,
  applyStream,
  asTask,
  bearerClients,
  stateOf,
  textRequest,
  waitForState,
} from "./client.ts";
import { type ScriptedHarness, startScriptedHarness } from "./dev-server.ts";
import { ROOT } from "./processes.ts";
import { addScenario } from "./scenarios.ts";
import { objectCalls, storageLedger } from "./storage-ledger.ts";
import { addUser } from "./users.ts";

const AGENT = "writer";
const HOOK_SECRET = "e2e-deployed-hook-secret";
const ADMIN = "e2e-deployed-admin";
const USER = "alice";

let harness: ScriptedHarness;
let token: string;
let a2a: A2AClient;

const base = () => harness.server.url;
const scenario = (turns: Turn[]) => addScenario(harness.fake.store, turns, "e2e-deployed");
const auth = () => ({ Authorization: `Bearer ${token}` });

beforeAll(async () => {
  harness = await startScriptedHarness(
    {
      HOOK_SECRET,
      STORAGE_METER: "true",
      // The isolate's admission lease outlasts a loaded machine's gap between two counted tasks
      // (deployed: 20 s); what a request under a lease calls is the same.
      ADMISSION_LEASE_SECONDS: "300",
      ADMIN_API_KEY: ADMIN,
      WEBHOOKS: JSON.stringify({
        notes: {
          agent: AGENT,
          owner: USER,
          secret: "HOOK_SECRET",
          signature: "github",
          events: ["push"],
          prompt: "[[reply:Pushed.]] A push to {{repository.full_name}}",
        },
      }),
    },
    undefined,
    true,
  );
  token = (await addUser(harness.server, USER)) ?? "";
  expect(token).toMatch(/^a2a_/);
  a2a = await bearerClients(token).createFromUrl(`${base()}/agents/${AGENT}/`);
});

afterAll(async () => {
  await harness?.stop();
});

describe("the deployed profile (npm run dev -- --deployed)", () => {
  it("is closed: an anonymous caller is refused, the card is public", async () => {
    const refused = await fetch(`${base()}/agents/${AGENT}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    });
    expect(refused.status).toBe(401);
    const card = await fetch(`${base()}/agents/${AGENT}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
  });

  it("applies the shipped token budgets (wrangler.toml's)", async () => {
    const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
    const shipped = (name: string) =>
      Number(new RegExp(`^${name} = "(\\d+)"$`, "m").exec(toml)?.[1]);
    const usage = (await (await fetch(`${base()}/api/usage`, { headers: auth() })).json()) as {
      budgets: Record<string, number>;
    };
    expect(usage.budgets).toEqual({
      taskTokens: shipped("BUDGET_TASK_TOKENS"),
      dayTokens: shipped("BUDGET_DAY_TOKENS"),
      monthTokens: shipped("BUDGET_MONTH_TOKENS"),
    });
    expect(usage.budgets.taskTokens).toBeGreaterThan(0);
  });

  it("makes five object calls writing at most 30 rows for a one-turn task, admitted by the isolate's lease", async () => {
    const s = scenario([{ text: "Counted." }]);
    const send = () => a2a.sendMessage(textRequest(`counted ${s.marker}`));
    // The isolate's copies (agents, token, shared memory) and its lease of the user's places in
    // the minute (users/admission-lease.ts) made before the count.
    await send();
    const { ledgerOf } = storageLedger(base(), ADMIN);
    const { metered, body } = await ledgerOf(send);
    expect(stateOf(asTask(body))).toBe("TASK_STATE_COMPLETED");
    // The credential throttle's calls come only when the isolate's token cache has expired (the
    // admin key's polls too): not the task's.
    const calls = objectCalls(metered.ledger.entries).filter(
      (name) => !/^USERS\.(attempt|releaseAttempt)$/.test(name),
    );
    expect(calls).toEqual([
      "TASKS.create",
      "USERS.reserve",
      "USERS.settle",
      "WORKSPACES.endNote",
      "WORKSPACES.snapshot",
    ]);
    // Admitted without a call: the task object's is the first (the grant's reservation is its).
    const first = metered.ledger.entries
      .filter(
        (e) =>
          e.kind === "do" && !e.background && !/^USERS\.(attempt|releaseAttempt)$/.test(e.name),
      )
      .sort((a, b) => a.at - b.at)[0];
    expect(first?.name).toBe("TASKS.create");
    // Rows written by the objects' SQL, as Durable Objects bill them (an index entry is a row);
    // the credential throttle's rows are not the task's.
    const rows = metered.ledger.entries
      .filter((e) => e.kind === "sql" && !/\bauth_attempts\b/.test(e.sql ?? ""))
      .reduce((sum, e) => sum + (e.rows ?? 0), 0);
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(30);
  });

  it("sends, gets and lists a user's task", async () => {
    const s = scenario([{ text: "Deployed answer." }]);
    const task = asTask(await a2a.sendMessage(textRequest(`send ${s.marker}`)));
    expect(stateOf(task)).toBe("TASK_STATE_COMPLETED");
    expect(answerOf(task)).toBe("Deployed answer.");
    const read = await a2a.getTask({ tenant: "", id: task.id });
    expect(read.metadata?.owner).toBe(USER);
    const listed = await a2a.listTasks(
      ListTasksRequest.fromJSON({ contextId: task.contextId, pageSize: 10 }),
    );
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it("streams a task to its end", async () => {
    const s = scenario([{ text: "streamed in the deployed profile", chunkSize: 6 }]);
    const events: StreamResponse[] = [];
    for await (const event of a2a.sendMessageStream(textRequest(`stream ${s.marker}`)))
      events.push(event);
    expect(events[0]?.payload?.$case).toBe("task");
    expect(applyStream(events)).toBe("streamed in the deployed profile");
    const last = events.at(-1);
    expect(last?.payload?.$case).toBe("statusUpdate");
  });

  it("admits a stream from the isolate's spare slot: no call before the task object's", async () => {
    const stream = async (text: string) => {
      const s = scenario([{ text: "Streamed." }]);
      const events: StreamResponse[] = [];
      for await (const event of a2a.sendMessageStream(textRequest(`${text} ${s.marker}`)))
        events.push(event);
      return events;
    };
    await stream("first"); // the isolate's lease: places, the stream's slot and a spare one
    const { ledgerOf } = storageLedger(base(), ADMIN);
    const { metered, body } = await ledgerOf(() => stream("second"));
    expect(applyStream(body)).toBe("Streamed.");
    const calls = metered.ledger.entries
      .filter((e) => e.kind === "do" && !/^USERS\.(attempt|releaseAttempt)$/.test(e.name))
      .sort((a, b) => a.at - b.at);
    // The task object's call first; of the user object, only the model call's budget. The spare
    // slot served the stream and went back to the isolate when it ended.
    expect(calls[0]?.name).toBe("TASKS.create");
    expect(calls.map((e) => e.name).filter((name) => name.startsWith("USERS."))).toEqual([
      "USERS.reserve",
      "USERS.settle",
    ]);
  });

  it("cancels a running task", async () => {
    const s = scenario([{ text: "z".repeat(400), chunkSize: 1, delayMs: 50 }]);
    const task = asTask(
      await a2a.sendMessage(textRequest(`slow ${s.marker}`, { returnImmediately: true })),
    );
    const canceled = await a2a.cancelTask({ tenant: "", id: task.id, metadata: undefined });
    expect(stateOf(canceled)).toBe("TASK_STATE_CANCELED");
    expect(stateOf(await waitForState(a2a, task.id, "TASK_STATE_CANCELED"))).toBe(
      "TASK_STATE_CANCELED",
    );
  });

  it("answers over MCP with the user's token", async () => {
    const mcp = new Client({ name: "e2e-deployed", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base()}/agents/${AGENT}/mcp`), {
        requestInit: { headers: auth() },
      }),
    );
    try {
      const s = scenario([{ text: "Over MCP." }]);
      const sent = (await callTool(mcp, "send_message", { text: `mcp ${s.marker}` })).fields;
      expect(sent).toMatchObject({ state: "completed", answer: "Over MCP." });
      expect(stateOf(await a2a.getTask({ tenant: "", id: sent.taskId }))).toBe(
        "TASK_STATE_COMPLETED",
      );
    } finally {
      await mcp.close();
    }
  });

  it("runs an AG-UI run with the user's token", async () => {
    const s = scenario([{ text: "Over AG-UI." }]);
    const agent = new HttpAgent({ url: `${base()}/agents/${AGENT}/ag-ui`, headers: auth() });
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: `agui ${s.marker}` });
    const events: BaseEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    const text = events
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .map((e) => (e as unknown as { delta: string }).delta)
      .join("");
    expect(text).toBe("Over AG-UI.");
  });

  it("starts the user's task from a signed webhook", async () => {
    const body = JSON.stringify({ repository: { full_name: "acme/deployed" } });
    const started = await fetch(`${base()}/webhooks/notes`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": crypto.randomUUID(),
        "X-Hub-Signature-256": `sha256=${createHmac("sha256", HOOK_SECRET).update(body).digest("hex")}`,
      },
      body,
    });
    expect(started.status).toBe(202);
    const { taskId } = (await started.json()) as { taskId: string };
    const done = await waitForState(a2a, taskId, "TASK_STATE_COMPLETED");
    expect(answerOf(done)).toBe("Pushed.");
    expect(done.metadata?.owner).toBe(USER);
  });
});
