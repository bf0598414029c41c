/**
 * The skills catalogue of an agent, for any caller who may use the agent (anyone else, and an
 * agent that is not served: "not found"):
 *   GET /api/agents/:name/skills   { agent, skills, loadable }: `skills`, what the agent's card
 *                                  lists (id, name, description, tags, examples; an authenticated
 *                                  caller also gets the frontmatter's `extendedSkills`, as the
 *                                  extended card does), and `loadable`, the skill folders its model
 *                                  loads on demand (name, description, where its SKILL.md is, and
 *                                  the files beside it with their sizes; never their text).
 */
import { Hono } from "hono";
import { cardSkill } from "../a2a/cards/card.ts";
import { servedAgent } from "../agents/roster.ts";
import { authenticate } from "../auth/middleware.ts";
import { mayUseAgent } from "../auth/principal.ts";
import { HttpError } from "../platform/http-error.ts";
import type { AppEnv } from "../protocol/app-types.ts";

/** The skills catalogue route. */
export function skillsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/api/agents/:name/skills", authenticate(), (c) => {
    const name = c.req.param("name");
    const principal = c.get("principal");
    const agent = servedAgent(c.env, name);
    if (!agent || !mayUseAgent(principal, agent.name, agent.access))
      throw new HttpError(404, `no agent ${name} is served to you`);
    const extended = principal.via === "anonymous" ? [] : agent.extendedSkills;
    return c.json({
      agent: agent.name,
      skills: [...agent.skills, ...extended].map(cardSkill),
      loadable: agent.skillFolders.map((folder) => ({
        name: folder.name,
        description: folder.description,
        file: folder.file,
        files: folder.files.map((f) => ({ path: f.path, bytes: f.bytes })),
      })),
    });
  });
  return app;
}
