/**
 * Privacy (the user themself, or an admin):
 *   GET    /api/users/:id/data   everything held about the user, as JSON: the user row and token
 *                                metadata (never hashes), every task (history, artifacts,
 *                                metadata), each agent's workspace files and memory, the
 *                                scratchpads of the user's tasks, and the budget counters
 *   DELETE /api/users/:id/data   erases all of it everywhere: task, conversation, workspace and
 *                                user objects, R2 objects, D1 rows (the user row and tokens too)
 */
import { Hono } from "hono";
import { currentAgents } from "../agents/overrides.ts";
import { authenticate, forgetTokens, requireAccount } from "../auth/middleware.ts";
import { getUser, tokenHashes, tokenList } from "../auth/users-store.ts";
import { HttpError } from "../platform/http-error.ts";
import { userCounters } from "../platform/object-names.ts";
import { stubByName } from "../platform/object-stub.ts";
import { eraseContexts, eraseOwnerFiles, eraseTasks } from "../privacy/erase.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import type { Task } from "../protocol/wire.ts";
import { scratchPrefix, userKey } from "../store/r2-keys.ts";
import { deletePrefix, listPrefix } from "../store/r2-prefix.ts";
import { deleteAccountRows, userTasks } from "../store/task-queries.ts";
import { forgetSlices } from "../users/admission-lease.ts";
import { userObject } from "../users/limits.ts";
import { workspaceFor } from "../workspace/client.ts";

const PARALLEL = 6;

/** The privacy routes. */
export function privacyRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/api/users/:id/data", authenticate(), requireAccount(), async (c, next) => {
    const principal = c.get("principal");
    if (principal.id !== c.req.param("id") && principal.role !== "admin")
      throw new HttpError(404, "user not found");
    await next();
  });

  app.get("/api/users/:id/data", async (c) => {
    const owner = c.req.param("id");
    const env = c.env;
    const user = await getUser(env.DB, owner);
    const tokens = await tokenList(env.DB, owner);
    const rows = await userTasks(env.DB, owner);
    const tasks: Task[] = [];
    for (let i = 0; i < rows.length; i += PARALLEL) {
      const batch = await Promise.all(
        rows
          .slice(i, i + PARALLEL)
          .map(
            async (row) =>
              (await stubByName(env.TASKS, row.id).get({ owner })) as
                | { ok: true; value: Task }
                | { ok: false },
          ),
      );
      for (const got of batch) if (got.ok) tasks.push(got.value);
    }
    const agents: Record<string, unknown> = {};
    for (const agent of currentAgents().names()) {
      const workspace = workspaceFor(env.WORKSPACES, agent, owner);
      const listing = await workspace.list();
      const files: Record<string, string> = {};
      if (listing.ok)
        for (const entry of listing.value.entries) {
          // Whole files, page by page (a read returns at most 2,000 lines).
          const pages: string[] = [];
          for (let from = 1; ; ) {
            const read = await workspace.read(entry.path, { offset: from, limit: 2_000 });
            if (!read.ok) break;
            pages.push(read.value.content);
            if (read.value.toLine >= read.value.totalLines || read.value.toLine < from) break;
            from = read.value.toLine + 1;
          }
          // Each page ends with its last line's break: joined as they are, the file is whole.
          files[entry.path] = pages.join("");
        }
      const memory = await env.FILES.get(userKey(agent, owner, "memory/CONTEXT.md"));
      if (Object.keys(files).length > 0 || memory)
        agents[agent] = { files, memory: memory ? await memory.text() : null };
    }
    // Scratchpads by id: one per conversation (see task/store/lineage.ts).
    const scratchpads: Record<string, Record<string, string>> = {};
    const prefix = scratchPrefix(owner);
    for (const object of await listPrefix(env.FILES, prefix)) {
      const [scratchId, ...path] = object.key.slice(prefix.length).split("/");
      const body = await env.FILES.get(object.key);
      if (!scratchId || !body) continue;
      scratchpads[scratchId] ??= {};
      scratchpads[scratchId][path.join("/")] = await body.text();
    }
    return c.json({
      exportedAt: new Date().toISOString(),
      user: user ?? { id: owner },
      tokens,
      tasks,
      agents,
      scratchpads,
      usage: await userObject(env, userCounters(owner)).usage(),
    });
  });

  app.delete("/api/users/:id/data", async (c) => {
    const owner = c.req.param("id");
    const env = c.env;
    const rows = await userTasks(env.DB, owner);
    const contexts = [
      ...new Map(
        rows.map((r) => [
          `${r.agent} ${r.contextId}`,
          { owner, agent: r.agent, contextId: r.contextId },
        ]),
      ).values(),
    ];
    // The conversations of the root agents too (a sub-agent's task lists its own agent).
    await eraseTasks(
      env,
      owner,
      rows.map((r) => r.id),
    );
    await eraseContexts(env, contexts);
    await eraseOwnerFiles(env, owner, currentAgents().names());
    await deletePrefix(env.FILES, scratchPrefix(owner));
    await userObject(env, userCounters(owner)).erase();
    forgetSlices(env, userCounters(owner));
    forgetTokens(env, await tokenHashes(env.DB, owner));
    await deleteAccountRows(env.DB, owner);
    return c.body(null, 204);
  });
  return app;
}
