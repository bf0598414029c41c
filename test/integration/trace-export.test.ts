/**
 * What the OTLP export sends of an anonymous conversation: for an anonymous caller its contextId
 * and its tasks' ids are its keys, so no exported span, event, link or resource holds them (nor
 * the owner id derived from them); keyed hashes stand in for them, the same for the same id, so a
 * reader of the collector still ties a task's spans, a conversation's tasks and a delegation to
 * the child task it started together. The export is run as the task object runs it at a task's
 * end, to a collector that is a fake `fetch`.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { anonymousOwner } from "../../src/auth/anonymous.ts";
import { loadConfig } from "../../src/config/config.ts";
import { exportAtEnd } from "../../src/task/task-spans.ts";
import { fetchWorker, rpc, userMessage, type WireTask } from "../helpers/a2a.ts";
import { scenario } from "../helpers/fake-model.ts";
import { attr, type Otlp, spansOf } from "../helpers/otlp.ts";
import { taskInput, textToolTurn as tool } from "../helpers/turns.ts";

afterEach(() => vi.restoreAllMocks());

const send = async (text: string, contextId?: string) =>
  (
    await rpc<{ task: WireTask }>("SendMessage", {
      message: userMessage(text, contextId ? { contextId } : {}),
    })
  ).result?.task as WireTask;

/** What the task object `taskId` posts to the collector at its end. */
async function exported(taskId: string): Promise<string> {
  const bodies: string[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    bodies.push(await new Request(input as RequestInfo, init).text());
    return new Response("{}");
  });
  const base = loadConfig(env);
  const config = {
    trace: {
      ...base.trace,
      export: {
        url: "https://collector.test/v1/traces",
        headers: {},
        protocol: "json" as const,
        resource: base.trace.resource,
      },
    },
  };
  const stub = env.TASKS.get(env.TASKS.idFromName(taskId));
  await runInDurableObject(stub, (instance) =>
    exportAtEnd(instance.runtime, config, env.DB, "TASK_STATE_COMPLETED"),
  );
  vi.restoreAllMocks();
  expect(bodies).toHaveLength(1);
  return bodies[0] as string;
}

describe("exported spans of an anonymous conversation", () => {
  it("hold no id that opens it, and hashes that still tie its spans together", async () => {
    const child = await scenario([{ text: "Draft." }]);
    const first = await scenario([
      tool("task", taskInput("writer", "draft", `Draft it. ${child.marker}`)),
      { text: "Done." },
    ]);
    const task = await send(`go ${first.marker}`);
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const second = await scenario([{ text: "Again." }]);
    const next = await send(`more ${second.marker}`, task.contextId);
    // The child's id, as the owner's own trace route shows it.
    const route = (await (await fetchWorker(`/api/tasks/${task.id}/trace`)).json()) as Otlp;
    const childSpan = spansOf(route).find((s) => s.name === "invoke_agent writer");
    const childId = String(attr(childSpan ?? { attributes: [] }, "a2a.task.id"));
    expect(childId).toMatch(/^[0-9a-f-]{36}$/);

    const bodies = {
      task: await exported(task.id),
      child: await exported(childId),
      next: await exported(next.id),
    };
    const capabilities = [task.id, next.id, childId, task.contextId];
    const derived = await anonymousOwner(task.contextId);
    for (const body of Object.values(bodies)) {
      for (const id of capabilities) {
        expect(body).not.toContain(id);
        expect(body).not.toContain(id.replaceAll("-", ""));
      }
      expect(body).not.toContain(derived.slice("anon-".length));
    }

    const spans = {
      task: spansOf(JSON.parse(bodies.task) as Otlp),
      child: spansOf(JSON.parse(bodies.child) as Otlp),
      next: spansOf(JSON.parse(bodies.next) as Otlp),
    };
    const root = (list: typeof spans.task) =>
      list.find((s) => s.name.startsWith("invoke_agent")) ?? { attributes: [] };
    const conversation = (list: typeof spans.task) => attr(root(list), "gen_ai.conversation.id");
    // One conversation, one stand-in; each task its own.
    expect(conversation(spans.task)).toMatch(/^[0-9a-f]{32}$/);
    expect(conversation(spans.next)).toBe(conversation(spans.task));
    expect(attr(root(spans.next), "a2a.task.id")).not.toBe(attr(root(spans.task), "a2a.task.id"));
    // The delegation names the child task as the child's own spans do.
    const delegation = spans.task.find((s) => s.name === "execute_tool task");
    expect(attr(delegation ?? { attributes: [] }, "a2a.delegation.task_id")).toBe(
      attr(root(spans.child), "a2a.task.id"),
    );
  }, 60_000);
});
