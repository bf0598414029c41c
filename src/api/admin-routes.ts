/**
 * The admin API (admins only: an admin user's token or ADMIN_API_KEY):
 *   GET    /api/admin/users                       every user (no token material)
 *   POST   /api/admin/users                       { id, name?, role?, agents? }: 201 with a token (shown once)
 *   POST   /api/admin/users/:id/budget            { taskTokens?, dayTokens?, monthTokens? } (null clears)
 *   POST   /api/admin/users/:id/revoke            revokes every token of the user and cancels
 *                                                  their running tasks (stop-tasks.ts)
 *   PUT    /api/admin/agents/:name/memory         the agent's shared CONTEXT.md (text body)
 *   GET    /api/admin/agents/:name/identity       the IDENTITY.md in force (uploaded or bundled);
 *                                                  with Accept: application/json, { identity,
 *                                                  skills } (the agent's own skills' text files)
 *   PUT    /api/admin/agents/:name/identity       uploads one (validated; served at once): the
 *                                                  text, or JSON { identity, skills? } whose
 *                                                  skills replace the agent's own
 *   DELETE /api/admin/agents/:name/identity       drops the upload (the bundled one applies again)
 *   POST   /api/admin/reload                      re-reads the uploaded identities now, here and
 *                                                  (within 2 s) in every isolate; answers the roster
 * Agent changes (upload, drop, reload) are told to open event streams (events/agent-events.ts).
 *   GET    /api/admin/storage-meter               D1 statements and R2 operations counted, and the
 *                                                  ledger of timed round trips (STORAGE_METER)
 *   DELETE /api/admin/storage-meter               the same, then starts again from zero
 * Bodies are JSON (worker.ts guards `/api/`: platform/content-type.ts) but for the two uploads,
 * {@link DOCUMENT_ROUTES}.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  type AgentUpload,
  agentUpload,
  currentAgents,
  deleteOverride,
  putOverride,
  reloadAgents,
} from "../agents/overrides.ts";
import { SKILL_NAME } from "../agents/skill-folders.ts";
import { authenticate, forgetTokens, requireAdmin } from "../auth/middleware.ts";
import { reservedUserId } from "../auth/user-ids.ts";
import {
  createUser,
  getUser,
  listUsers,
  revokeTokens,
  setBudget,
  tokenHashes,
} from "../auth/users-store.ts";
import { publishAgentsChanged } from "../events/agent-events.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { HttpError, invalidInput } from "../platform/http-error.ts";
import { bodyText, jsonBody } from "../platform/json-body.ts";
import { ledgerEntries } from "../platform/ledger.ts";
import { resetStorageCounts, storageCounts } from "../platform/storage-meter.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { MEMORY_MAX_CHARS, writeSharedMemory } from "../store/shared-memory.ts";
import { forgetBudget } from "../users/limits.ts";
import { lazy } from "../utils/lazy.ts";
import { stopTasksOf } from "./stop-tasks.ts";

const IDENTITY_MAX_CHARS = 65_536;
/** An upload as JSON: the IDENTITY.md, and the agent's skills (folder name -> path -> text). */
const identityUpload = lazy(() =>
  z.strictObject({
    identity: z.string().max(IDENTITY_MAX_CHARS, `is at most ${IDENTITY_MAX_CHARS} characters`),
    skills: z
      .record(
        z.string().regex(SKILL_NAME, "a skill's folder name is its name (a-z, 0-9, single '-')"),
        z.record(z.string().min(1).max(256), z.string()),
      )
      .optional(),
  }),
);
const newUser = lazy(() =>
  z.strictObject({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._@-]{0,63}$/, "lower case letters, digits, . _ @ -")
      .superRefine((id, ctx) => {
        const reserved = reservedUserId(id);
        if (reserved) ctx.addIssue({ code: "custom", message: reserved });
      }),
    name: z.string().trim().min(1).max(200).optional(),
    role: z.enum(["user", "admin"]).default("user"),
    agents: z
      .array(z.string().regex(/^[a-z][a-z0-9-]{0,62}$/))
      .max(100)
      .nullable()
      .optional(),
  }),
);
const budget = lazy(() => {
  const tokens = z.number().int().min(0).max(10_000_000_000);
  return z
    .strictObject({
      taskTokens: tokens.optional(),
      dayTokens: tokens.optional(),
      monthTokens: tokens.optional(),
    })
    .nullable();
});

const MEMORY_ROUTE = "/api/admin/agents/:name/memory";
const IDENTITY_ROUTE = "/api/admin/agents/:name/identity";
/**
 * The routes that take a document (Markdown, any media type) rather than JSON: by PUT, which no
 * other site can send without a CORS preflight, so they need no JSON guard (platform/content-type.ts).
 */
export const DOCUMENT_ROUTES: readonly string[] = [MEMORY_ROUTE, IDENTITY_ROUTE];

/** The admin routes. */
export function adminRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/api/admin/users", authenticate(), requireAdmin());
  app.use("/api/admin/users/*", authenticate(), requireAdmin());
  app.use("/api/admin/agents/*", authenticate(), requireAdmin());
  app.use("/api/admin/reload", authenticate(), requireAdmin());

  app.get("/api/admin/users", async (c) => c.json({ users: await listUsers(c.env.DB) }));

  // Storage counts of this isolate (STORAGE_METER=true); DELETE starts them from zero.
  app.on(["GET", "DELETE"], "/api/admin/storage-meter", authenticate(), requireAdmin(), (c) => {
    const counted = {
      enabled: c.env.STORAGE_METER === "true",
      ...storageCounts(),
      ledger: ledgerEntries(),
    };
    if (c.req.method === "DELETE") resetStorageCounts();
    return c.json(counted);
  });

  // What the cron trigger does, on demand (wrangler dev has no authenticated way to fire it).
  app.post("/api/admin/users", async (c) => {
    const parsed = newUser().safeParse(await jsonBody(c.req.raw));
    if (!parsed.success) throw invalidInput(parsed.error);
    if (await getUser(c.env.DB, parsed.data.id))
      throw new HttpError(409, `user ${parsed.data.id} exists`);
    const { user, token } = await createUser(c.env.DB, {
      id: parsed.data.id,
      name: parsed.data.name ?? parsed.data.id,
      role: parsed.data.role,
      agents: parsed.data.agents ?? null,
    });
    return c.json({ user, token }, 201);
  });

  app.post("/api/admin/users/:id/budget", async (c) => {
    const parsed = budget().safeParse(await jsonBody(c.req.raw));
    if (!parsed.success) throw invalidInput(parsed.error);
    const id = c.req.param("id");
    if (!(await setBudget(c.env.DB, id, parsed.data))) throw new HttpError(404, `no user ${id}`);
    forgetBudget(id);
    // Cached principals carry the overrides too (see auth/middleware.ts).
    forgetTokens(c.env, await tokenHashes(c.env.DB, id));
    return c.json({ user: await getUser(c.env.DB, id) });
  });

  app.post("/api/admin/users/:id/revoke", async (c) => {
    const id = c.req.param("id");
    if (!(await getUser(c.env.DB, id))) throw new HttpError(404, `no user ${id}`);
    const hashes = await tokenHashes(c.env.DB, id);
    const revoked = await revokeTokens(c.env.DB, id);
    forgetTokens(c.env, hashes);
    const stopped = await stopTasksOf(c.env, id);
    return c.json({ revoked, canceledTasks: stopped.canceled, moreTasks: stopped.more });
  });

  // Uploads are limited by MAX_BODY_BYTES before they are read, like every body.
  const uploadLimit = bodyLimit();
  app.put(MEMORY_ROUTE, uploadLimit, async (c) => {
    const name = c.req.param("name");
    if (!currentAgents().has(name)) throw new HttpError(404, `no agent ${name}`);
    const text = await bodyText(c.req);
    if (text.length > MEMORY_MAX_CHARS)
      throw new HttpError(413, `the shared memory is at most ${MEMORY_MAX_CHARS} characters`);
    await writeSharedMemory(c.env.FILES, name, text);
    return c.json({ agent: name, chars: text.length });
  });
  app.get(IDENTITY_ROUTE, async (c) => {
    const upload = await agentUpload(c.env, c.req.param("name"));
    if (upload === null) throw new HttpError(404, `no agent ${c.req.param("name")}`);
    if (/application\/json/.test(c.req.header("accept") ?? "")) return c.json(upload);
    return c.text(upload.identity, 200, { "content-type": "text/markdown; charset=utf-8" });
  });

  app.put(IDENTITY_ROUTE, uploadLimit, async (c) => {
    const name = c.req.param("name");
    if (!/^[a-z][a-z0-9-]{0,62}$/.test(name))
      throw new HttpError(400, "agent names are kebab-case (a-z, 0-9, -)");
    const upload = await uploadOf(c.req);
    try {
      await putOverride(c.env, name, upload);
    } catch (error) {
      throw new HttpError(400, error instanceof Error ? error.message : String(error));
    }
    c.executionCtx.waitUntil(publishAgentsChanged(c.env, "upload", name));
    const agent = currentAgents().get(name);
    return c.json({ agent: name, version: agent?.version, description: agent?.description });
  });

  app.delete(IDENTITY_ROUTE, async (c) => {
    const name = c.req.param("name");
    if (!(await deleteOverride(c.env, name)))
      throw new HttpError(404, `agent ${name} has no uploaded identity`);
    c.executionCtx.waitUntil(publishAgentsChanged(c.env, "delete", name));
    return c.body(null, 204);
  });

  // Vars change only with a deploy (new isolates), and what D1 holds (users, tokens, budgets) is
  // re-read by every isolate within 10 s: the agents are what a reload re-reads.
  app.post("/api/admin/reload", async (c) => {
    const registry = await reloadAgents(c.env);
    const told = await publishAgentsChanged(c.env, "reload");
    return c.json({
      reloadedAt: new Date().toISOString(),
      agents: registry.names(),
      unavailable: registry.brokenList(),
      streamsTold: told,
    });
  });
  return app;
}

/** The upload a PUT of an identity carries: JSON `{ identity, skills? }`, or the text alone. */
async function uploadOf(request: {
  header(name: string): string | undefined;
  arrayBuffer(): Promise<ArrayBuffer>;
}): Promise<AgentUpload> {
  if (/^application\/json/i.test(request.header("content-type") ?? "")) {
    const parsed = identityUpload().safeParse(await jsonBody(request));
    if (!parsed.success) throw invalidInput(parsed.error);
    return parsed.data;
  }
  const text = await bodyText(request);
  if (text.length > IDENTITY_MAX_CHARS)
    throw new HttpError(413, `an IDENTITY.md is at most ${IDENTITY_MAX_CHARS} characters`);
  return { identity: text };
}
