/**
 * Sessions (conversations) of the caller, from the D1 index:
 *   GET    /api/sessions              the caller's contexts, most recent first (?agent=, ?limit=)
 *   GET    /api/sessions/:id          its tasks and messages (user messages and answers, in order)
 *   DELETE /api/sessions/:id          erases its tasks (and their sub-agent tasks), conversation and
 *                                     scratchpad; for an anonymous conversation (its own owner)
 *                                     its workspaces, memory and R2 objects too
 * Another user's session id is "not found", never "forbidden". An anonymous caller has no list
 * (200, empty); a session id it names is the conversation it is in (the contextId is the
 * capability, see auth/anonymous.ts).
 */

import { type Context, Hono } from "hono";
import { ANONYMOUS_CALLER, anonymousOwner, isAnonymousOwner } from "../auth/anonymous.ts";
import { authenticate } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { estimateCost } from "../model/pricing.ts";
import { HttpError } from "../platform/http-error.ts";
import { stubByName } from "../platform/object-stub.ts";
import { eraseContexts, eraseOwnerFiles, eraseTasks } from "../privacy/erase.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { HARNESS_EVENTS_EXTENSION } from "../protocol/extensions.ts";
import type { Message, Task } from "../protocol/wire.ts";
import {
  agentsOfTasks,
  listSessions,
  sessionTasks,
  withDescendants,
} from "../store/task-queries.ts";
import { agentModel } from "../trace/cost.ts";

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
    const rows = await listSessions(c.env.DB, c.get("owner"), agent, limit);
    const defaultModel = loadConfig(c.env).defaultModel;
    // Each conversation's usage and estimated cost, priced at its agent's model.
    return c.json({
      sessions: rows.map((row) => ({
        ...row,
        estimatedCostUsd: estimateCost(agentModel(row.agent, defaultModel), row),
      })),
    });
  });

  app.get("/api/sessions/:id", async (c) => {
    const owner = await ownerOf(c, c.req.param("id"));
    const rows = await sessionTasks(c.env.DB, owner, c.req.param("id"));
    if (rows.length === 0) throw new HttpError(404, "session not found");
    const tasks: Task[] = [];
    for (const row of rows.slice(0, 100)) {
      const got = (await stubByName(c.env.TASKS, row.id).get({ owner })) as
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
    if (rows.length === 0) throw new HttpError(404, "session not found");
    const ids = await withDescendants(
      c.env.DB,
      rows.map((r) => r.id),
    );
    // An anonymous conversation is its own owner: its sub-agents' files (their memory) go too.
    const helpers = isAnonymousOwner(owner) ? await agentsOfTasks(c.env.DB, ids) : [];
    await eraseTasks(c.env, owner, ids);
    const agents = [...new Set(rows.map((r) => r.agent))];
    await eraseContexts(
      c.env,
      agents.map((agent) => ({ owner, agent, contextId })),
    );
    const others = helpers.filter((agent) => !agents.includes(agent));
    if (others.length > 0) await eraseOwnerFiles(c.env, owner, others);
    return c.body(null, 204);
  });
  return app;
}
