/**
 * Admin API of the knowledge base, pinned:
 *   PUT    /api/admin/knowledge/:id     JSON { agent, title, source?, content } (content <= 1 MB):
 *                                      201 created / 200 replaced, the document without content
 *   GET    /api/admin/knowledge         ?agent= (exact, '*' included) &limit= (<= 1000) &cursor=:
 *                                      { documents: [{ id, agent, title, source, chars, ... }], nextCursor }
 *   DELETE /api/admin/knowledge/:id     204, or 404 when there is no such document
 * Every route is for admins (an admin user's token, or ADMIN_API_KEY): 401 for missing or bad
 * credentials where anonymous access is off, 403 for a caller who is not an admin. Errors are JSON
 * `{ error: { code, status, message } }` (platform/http-error.ts), like every REST error.
 * Mount with `app.route("/", knowledgeAdminRoutes())`; the guard covers only these paths.
 */

import { Hono } from "hono";
import { z } from "zod";
import { authenticate, requireAdmin } from "../auth/middleware.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { HttpError, invalidInput } from "../platform/http-error.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { deleteDocument, listDocuments, upsertDocument } from "../store/knowledge.ts";
import { lazy } from "../utils/lazy.ts";

const encoder = new TextEncoder();

/** Path prefix of the admin knowledge routes. */
export const KNOWLEDGE_ADMIN_PATH = "/api/admin/knowledge";
/** Most bytes (UTF-8) of a document's content. */
export const MAX_DOCUMENT_BYTES = 1_048_576;

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
const ID_RULE =
  "document ids are 1-200 characters: letters, digits, '.', '_', ':' or '-', starting with a letter or digit";

const documentBody = lazy(() =>
  z.object({
    agent: z
      .string()
      .regex(
        /^(\*|[a-z][a-z0-9-]{0,62})$/,
        "expected an agent name (kebab-case) or '*' for every agent",
      ),
    title: z.string().trim().min(1, "is required").max(500, "is longer than 500 characters"),
    source: z.string().trim().max(2000, "is longer than 2000 characters").nullable().optional(),
    content: z.string().min(1, "is required"),
  }),
);

/** The admin knowledge routes: admins only (an admin user's token, or ADMIN_API_KEY). */
export function knowledgeAdminRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const path of [KNOWLEDGE_ADMIN_PATH, `${KNOWLEDGE_ADMIN_PATH}/:id`])
    app.use(path, authenticate(), requireAdmin());

  app.put(
    `${KNOWLEDGE_ADMIN_PATH}/:id`,
    // JSON escaping can double the content; the content itself is checked below.
    bodyLimit({ maxBytes: 4 * MAX_DOCUMENT_BYTES }),
    async (c) => {
      const id = c.req.param("id");
      if (!ID.test(id)) throw new HttpError(400, ID_RULE);
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        throw new HttpError(400, "the body is not valid JSON");
      }
      const parsed = documentBody().safeParse(body);
      if (!parsed.success) {
        throw invalidInput(parsed.error);
      }
      const doc = { id, ...parsed.data, source: parsed.data.source || null };
      const bytes = encoder.encode(doc.content).byteLength;
      if (bytes > MAX_DOCUMENT_BYTES) {
        throw new HttpError(
          413,
          `content is ${bytes} bytes; the limit is ${MAX_DOCUMENT_BYTES} (1 MB)`,
        );
      }
      const { created, updatedAt } = await upsertDocument(c.env.DB, doc);
      return c.json(
        {
          id,
          agent: doc.agent,
          title: doc.title,
          source: doc.source,
          chars: doc.content.length - (doc.content.match(/[\uDC00-\uDFFF]/g)?.length ?? 0),
          created,
          updatedAt,
        },
        created ? 201 : 200,
      );
    },
  );

  app.get(KNOWLEDGE_ADMIN_PATH, async (c) => {
    const agent = c.req.query("agent");
    const cursor = c.req.query("cursor");
    const limit = Number(c.req.query("limit") ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new HttpError(400, "limit must be an integer from 1 to 1000");
    }
    const page = await listDocuments(c.env.DB, {
      ...(agent ? { agent } : {}),
      ...(cursor ? { after: cursor } : {}),
      limit,
    });
    return c.json(page);
  });

  app.delete(`${KNOWLEDGE_ADMIN_PATH}/:id`, async (c) => {
    const id = c.req.param("id");
    if (!(await deleteDocument(c.env.DB, id))) {
      throw new HttpError(404, `no document with id ${JSON.stringify(id.slice(0, 200))}`);
    }
    return c.body(null, 204);
  });

  return app;
}
