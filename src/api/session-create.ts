/**
 * Starting a session (a conversation) without a message:
 *   POST /api/sessions   { agent? } (default DEFAULT_AGENT): 201 { contextId, agent, endpoint }
 * The server issues the contextId (128 random bits, auth/anonymous.ts `newContextId`), for an
 * anonymous caller too: for it the contextId is the conversation's capability. Nothing is stored:
 * a conversation exists from its first task (its D1 index row and its context object), which a
 * SendMessage naming this contextId starts; until then the session is not listed and GET or
 * DELETE of it answer 404. The agent must be served (not broken, not switched off) and the caller
 * allowed to use it (its access list, the frontmatter's `access`).
 */
import { Hono } from "hono";
import { z } from "zod";
import { newContextId } from "../auth/anonymous.ts";
import { authenticate } from "../auth/middleware.ts";
import { mayUseAgent } from "../auth/principal.ts";
import { loadConfig } from "../config/config.ts";
import { agentUrl, baseUrl } from "../config/public-url.ts";
import { agentNamed } from "../edge/agent-request.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { HttpError, invalidInput } from "../platform/http-error.ts";
import { jsonBodyOrEmpty } from "../platform/json-body.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { lazy } from "../utils/lazy.ts";

const newSession = lazy(() =>
  z.strictObject({
    agent: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,62}$/, "an agent name (a-z, 0-9, -)")
      .optional(),
  }),
);

/** The route that creates a session; mounted before the other session routes. */
export function sessionCreateRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/api/sessions", authenticate(), bodyLimit(), async (c) => {
    const parsed = newSession().safeParse(await jsonBodyOrEmpty(c.req.raw));
    if (!parsed.success) throw invalidInput(parsed.error);
    const config = loadConfig(c.env);
    const name = parsed.data.agent ?? config.defaultAgent;
    const agent = agentNamed(c, name, () => new HttpError(404, `no agent ${name}`));
    if (!mayUseAgent(c.get("principal"), agent.name, agent.access))
      throw new HttpError(403, `you may not use the agent ${agent.name}`);
    return c.json(
      { contextId: newContextId(), agent: agent.name, endpoint: agentUrl(baseUrl(c), agent.name) },
      201,
    );
  });
  return app;
}
