/**
 * Sessions (conversations) of the caller, from the D1 index:
 *   GET    /api/sessions              the caller's contexts, most recent first (?agent=, ?limit=)
 *   GET    /api/sessions/:id          its tasks and messages (user messages and answers, in order)
 *   DELETE /api/sessions/:id          erases its tasks (and their sub-agent tasks) and conversation
 * Another user's session id is "not found", never "forbidden". An anonymous caller has no list
 * (200, empty); a session id it names is the conversation it is in (the contextId is the
 * capability, see auth/anonymous.ts).
 */

import type { Context } from "hono";
import { Hono } from "hono";
import { ANONYMOUS_CALLER, anonymousOwner } from "../auth/anonymous.ts";
import { authenticate } from "../auth/middleware.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { HARNESS_EVENTS_EXTENSION } from "../protocol/extensions.ts";
import type { Message, Task } from "../protocol/wire.ts";
import type { TaskObject } from "../task/task-object.ts";
import { eraseContexts, eraseTasks, withDescendants } from "./erase.ts";
import { apiError } from "./errors.ts";

interface SessionRow {
  contextId: string;
  agent: string;
  tasks: number;
  startedAt: string;
  updatedAt: string;
}

async function sessionTasks(db: D1Database, owner: string, contextId: string) {
  const { results } = await db
    .prepare(
      `SELECT id, agent, state, created_at AS createdAt, updated_at AS updatedAt FROM tasks
       WHERE owner = ? AND context_id = ? AND parent_task_id IS NULL ORDER BY created_at, id`,
    )
    .bind(owner, contextId)
    .all<{ id: string; agent: string; state: string; createdAt: string; updatedAt: string }>();
  return results;
}

/** Who owns session `contextId` for this caller: itself, or (anonymous) that conversation. */
function ownerOf(c: Context<AppEnv>, contextId: string): Promise<string> | string {
  const owner = c.get("owner");
  return owner === ANONYMOUS_CALLER ? anonymousOwner(contextId) : owner;
}

/** The session routes. */
export function sessionsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/api/sessions", authenticate());
  app.use("/api/sessions/*", authenticate());

  app.get("/api/sessions", async (c) => {
    if (c.get("owner") === ANONYMOUS_CALLER) return c.json({ sessions: [] });
    const limit = Math.min(Math.max(Number(c.req.query("limit") ?? 50) || 50, 1), 200);
    const agent = c.req.query("agent") ?? null;
    const { results } = await c.env.DB.prepare(
      `SELECT context_id AS contextId, root_agent AS agent, COUNT(*) AS tasks,
         MIN(created_at) AS startedAt, MAX(updated_at) AS updatedAt
       FROM tasks WHERE owner = ?1 AND parent_task_id IS NULL AND (?2 IS NULL OR root_agent = ?2)
       GROUP BY context_id, root_agent ORDER BY updatedAt DESC LIMIT ?3`,
    )
      .bind(c.get("owner"), agent, limit)
      .all<SessionRow>();
    return c.json({ sessions: results });
  });

  app.get("/api/sessions/:id", async (c) => {
    const owner = await ownerOf(c, c.req.param("id"));
    const rows = await sessionTasks(c.env.DB, owner, c.req.param("id"));
    if (rows.length === 0) return apiError(c, 404, "session not found");
    const ns = c.env.TASKS as unknown as DurableObjectNamespace<TaskObject>;
    const tasks: Task[] = [];
    for (const row of rows.slice(0, 100)) {
      const got = (await ns.get(ns.idFromName(row.id)).get({ owner })) as
        | { ok: true; value: Task }
        | { ok: false };
      if (got.ok) tasks.push(got.value);
    }
    const messages: Message[] = tasks.flatMap((t) =>
      (t.history ?? []).filter((m) => !m.extensions?.includes(HARNESS_EVENTS_EXTENSION)),
    );
    return c.json({
      contextId: c.req.param("id"),
      tasks: tasks.map((t) => ({ id: t.id, status: t.status, metadata: t.metadata })),
      messages,
    });
  });

  app.delete("/api/sessions/:id", async (c) => {
    const contextId = c.req.param("id");
    const owner = await ownerOf(c, contextId);
    const rows = await sessionTasks(c.env.DB, owner, contextId);
    if (rows.length === 0) return apiError(c, 404, "session not found");
    const ids = await withDescendants(
      c.env.DB,
      rows.map((r) => r.id),
    );
    await eraseTasks(c.env, owner, ids);
    const agents = [...new Set(rows.map((r) => r.agent))];
    await eraseContexts(
      c.env,
      agents.map((agent) => ({ owner, agent, contextId })),
    );
    return c.body(null, 204);
  });
  return app;
}
