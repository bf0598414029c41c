/**
 * The knowledge base end to end in workerd: documents uploaded through the admin routes (mounted
 * on a fresh Hono app with the Worker's error mapping), found by the `search` tool (FTS5 in D1,
 * bm25, at most SEARCH_MAX_RESULTS results, agent scoping, hostile queries) and read by
 * `fetch_document` in pages. Each test uses its own agent names and ids: D1 storage is shared by
 * the tests of this file.
 */
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { knowledgeAdminRoutes } from "../../src/api/knowledge-routes.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { ToolContext } from "../../src/loop/contracts.ts";
import { httpErrorResponse } from "../../src/platform/http-error.ts";
import type { AppEnv } from "../../src/protocol/app-types.ts";
import { getDocument, searchDocuments, toFtsQuery } from "../../src/store/knowledge.ts";
import {
  FETCH_DOCUMENT_MAX_CHARS,
  fetchDocumentTool,
} from "../../src/tools/knowledge/fetch-document.ts";
import { searchTool } from "../../src/tools/knowledge/search.ts";
import { errorBody } from "../helpers/a2a.ts";
import { toolContext } from "../helpers/tool-context.ts";

const KEY = "admin-secret-key";
const app = new Hono<AppEnv>()
  .onError((error, c) => httpErrorResponse(c, error))
  .route("/", knowledgeAdminRoutes());
app.get("/other", (c) => c.text("other"));
const adminEnv = { ...env, ADMIN_API_KEY: KEY };

function admin(path: string, init: RequestInit = {}, bindings: object = adminEnv) {
  const headers = new Headers(init.headers);
  if (!headers.has("Authorization")) headers.set("Authorization", `Bearer ${KEY}`);
  return app.request(path, { ...init, headers }, bindings);
}

async function put(id: string, doc: Record<string, unknown>): Promise<Response> {
  return admin(`/api/admin/knowledge/${id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(doc),
  });
}

/** Puts each document of `docs` (id -> document), in order. */
async function putAll(docs: Record<string, Record<string, unknown>>): Promise<void> {
  for (const [id, doc] of Object.entries(docs)) await put(id, doc);
}

function asAgent(agent: string): ToolContext {
  return toolContext({ taskId: "task-kb", contextId: "ctx-kb", agent });
}

const resultIds = (content: string) => [...content.matchAll(/^ {3}id: (.+)$/gm)].map((m) => m[1]);

describe("admin routes", () => {
  it("refuses callers who are not admins (403) and missing or bad credentials (401)", async () => {
    const anonymous = await admin(
      "/api/admin/knowledge",
      { headers: { Authorization: "" } },
      { ...env, ADMIN_API_KEY: "" },
    );
    expect(anonymous.status).toBe(403);
    expect(await anonymous.json()).toEqual(errorBody(403, "PERMISSION_DENIED", "admin only"));
    const closed = { ...adminEnv, ALLOW_ANONYMOUS: "false" };
    for (const authorization of ["", "Bearer wrong", `Basic ${KEY}`, `Bearer ${KEY}x`]) {
      for (const [path, method] of [
        ["/api/admin/knowledge", "GET"],
        ["/api/admin/knowledge/doc-1", "PUT"],
        ["/api/admin/knowledge/doc-1", "DELETE"],
      ] as const) {
        const response = await admin(
          path,
          { method, headers: { Authorization: authorization } },
          closed,
        );
        expect(response.status, `${method} ${path} with "${authorization}"`).toBe(401);
        expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="a2a"');
        expect(((await response.json()) as { error: { status: string } }).error.status).toBe(
          "UNAUTHENTICATED",
        );
      }
    }
    const other = await app.request("/other", {}, adminEnv);
    expect(await other.text()).toBe("other");
  });

  it("creates, replaces, lists and deletes documents", async () => {
    const doc = {
      agent: "adm",
      title: "First",
      source: "https://kb.test/1",
      content: "alpha beta",
    };
    const created = await put("adm-1", doc);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      id: "adm-1",
      agent: "adm",
      chars: 10,
      created: true,
    });
    const replaced = await put("adm-1", { ...doc, title: "First, again", content: "gamma" });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({
      created: false,
      title: "First, again",
      chars: 5,
    });
    expect((await put("adm-2", { agent: "adm", title: "Second", content: "x" })).status).toBe(201);
    expect((await put("adm-3", { agent: "*", title: "Shared", content: "y" })).status).toBe(201);

    const list = await admin("/api/admin/knowledge?agent=adm&limit=1");
    const page = (await list.json()) as {
      documents: Array<Record<string, unknown>>;
      nextCursor: string;
    };
    expect(page.documents).toEqual([
      expect.objectContaining({
        id: "adm-1",
        title: "First, again",
        source: "https://kb.test/1",
        chars: 5,
      }),
    ]);
    const rest = (await (
      await admin(`/api/admin/knowledge?agent=adm&cursor=${page.nextCursor}`)
    ).json()) as {
      documents: Array<{ id: string }>;
      nextCursor: string | null;
    };
    expect(rest).toEqual({
      documents: [expect.objectContaining({ id: "adm-2", source: null })],
      nextCursor: null,
    });

    expect((await admin("/api/admin/knowledge/adm-2", { method: "DELETE" })).status).toBe(204);
    expect((await admin("/api/admin/knowledge/adm-2", { method: "DELETE" })).status).toBe(404);
    const after = (await (await admin("/api/admin/knowledge?agent=adm")).json()) as {
      documents: unknown[];
    };
    expect(after.documents).toHaveLength(1);
  });

  it("validates ids and bodies", async () => {
    const valid = { agent: "val", title: "T", content: "c" };
    const cases: Array<[string, unknown, number, RegExp]> = [
      ["-bad", valid, 400, /document ids/],
      ["ok-1", { ...valid, agent: "Not An Agent" }, 400, /^agent: expected an agent name/],
      ["ok-1", { ...valid, title: "  " }, 400, /^title: is required/],
      ["ok-1", { agent: "val", title: "T" }, 400, /^content: /],
      ["ok-1", "not json {", 400, /not valid JSON/],
      [
        "ok-1",
        { ...valid, content: "é".repeat(600_000) },
        413,
        /content is 1200000 bytes; the limit is 1048576/,
      ],
    ];
    for (const [id, body, status, message] of cases) {
      const response = await admin(`/api/admin/knowledge/${id}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        message,
      );
    }
  });
});

describe("search", () => {
  it("ranks the best match first and shows id, title, source, snippet and the fetch_document hint", async () => {
    await putAll({
      "rank-best": {
        agent: "ranker",
        title: "Durable Objects alarms",
        source: "https://kb.test/alarms",
        content:
          "Durable Objects can schedule alarms. An alarm wakes the object later, even after a restart.",
      },
      "rank-some": {
        agent: "ranker",
        title: "Storage overview",
        content: "Objects in R2 are stored durably. This page is about buckets, not alarms.",
      },
      "rank-none": { agent: "ranker", title: "Cooking", content: "How to make a good soup." },
    });
    const result = await searchTool.run({ query: "durable objects alarm" }, asAgent("ranker"));
    expect(result.isError).toBeFalsy();
    expect(resultIds(result.content)).toEqual(["rank-best", "rank-some"]);
    expect(result.content).toContain(
      '2 documents match "durable objects alarm" (best first, at most 3 shown):\n\n1. Durable Objects alarms\n   id: rank-best\n   source: https://kb.test/alarms\n   **Durable** **Objects** can schedule **alarms**.',
    );
    expect(result.content).toMatch(
      /To read a document in full, call fetch_document with its id, e\.g\. \{"id": "rank-best"\}\.$/,
    );
  });

  it("returns at most SEARCH_MAX_RESULTS (3) results whatever limit is asked", async () => {
    for (let i = 1; i <= 6; i++) {
      await put(`cap-${i}`, {
        agent: "capper",
        title: `Widget note ${i}`,
        content: `widget ${"widget ".repeat(i)}`,
      });
    }
    const ten = await searchTool.run({ query: "widget", limit: 10 }, asAgent("capper"));
    expect(resultIds(ten.content)).toHaveLength(3);
    const one = await searchTool.run({ query: "widget", limit: 1 }, asAgent("capper"));
    expect(resultIds(one.content)).toHaveLength(1);
    const all = await searchDocuments(env.DB, { agent: "capper", query: "widget", limit: 10 });
    expect(all).toHaveLength(6);
    // SEARCH_MAX_RESULTS moves the cap, and the answer says what it is.
    const five = toolContext({
      agent: "capper",
      config: loadConfig({ ...env, SEARCH_MAX_RESULTS: "5" }),
    });
    const wide = await searchTool.run({ query: "widget", limit: 10 }, five);
    expect(resultIds(wide.content)).toHaveLength(5);
    expect(wide.content).toContain("(best first, at most 5 shown)");
    expect(resultIds((await searchTool.run({ query: "widget" }, five)).content)).toHaveLength(5);
  });

  it("sees the agent's own documents and '*' documents, never another agent's", async () => {
    await putAll({
      "scope-a": { agent: "scope-alpha", title: "Alpha zebra", content: "zebra facts for alpha" },
      "scope-b": { agent: "scope-beta", title: "Beta zebra", content: "zebra facts for beta" },
      "scope-all": { agent: "*", title: "Shared zebra", content: "zebra facts for everyone" },
    });
    const alpha = await searchTool.run({ query: "zebra" }, asAgent("scope-alpha"));
    expect(resultIds(alpha.content).sort()).toEqual(["scope-a", "scope-all"]);
    const gamma = await searchTool.run({ query: "zebra" }, asAgent("scope-gamma"));
    expect(resultIds(gamma.content)).toEqual(["scope-all"]);
    const hidden = await fetchDocumentTool.run({ id: "scope-b" }, asAgent("scope-alpha"));
    expect(hidden).toEqual({
      isError: true,
      content: 'No document with id "scope-b". Use search to find document ids.',
    });
    expect(await getDocument(env.DB, { agent: "scope-beta", id: "scope-all" })).toMatchObject({
      id: "scope-all",
    });
  });

  it("never fails on hostile queries", async () => {
    await put("hostile-1", {
      agent: "hostile",
      title: "Quoting rules",
      content: "x marks the spot near the café",
    });
    const queries = [
      '"',
      '""',
      'x"',
      "AND",
      "x AND",
      "OR NOT",
      "NEAR(",
      "NEAR(x spot, 2)",
      "*",
      "x*",
      "title:x",
      "content:spot",
      "{title content}: spot",
      "- x",
      "^x",
      "(x",
      "x)",
      "'; DROP TABLE documents; --",
      "🙂",
      "\u0301",
      "x:y:z",
      `${"long".repeat(200)} x`,
      Array.from({ length: 200 }, (_, i) => `w${i}`).join(" "),
    ];
    for (const query of queries) {
      const direct = await searchDocuments(env.DB, { agent: "hostile", query, limit: 3 });
      expect(Array.isArray(direct)).toBe(true);
      const result = await searchTool.run({ query }, asAgent("hostile"));
      expect(result.isError, `${query}: ${result.content}`).toBeFalsy();
    }
    for (const query of ["title:x", "x AND", "NEAR(x spot, 2)", "x*", "cafe", "CAFÉ", "spots"]) {
      const result = await searchTool.run({ query }, asAgent("hostile"));
      expect(resultIds(result.content), query).toEqual(["hostile-1"]);
    }
    expect(toFtsQuery('title:x AND "y" NEAR(z*) {a}: b')).toBe('"x" OR "y" OR "z" OR "b"');
    expect(toFtsQuery("*** ( ) :")).toBeNull();
    const empty = await searchTool.run({ query: "*** ( )" }, asAgent("hostile"));
    expect(empty.content).toBe('No searchable words in "*** ( )": search with plain keywords.');
  });

  it("keeps the index in sync on replace and delete", async () => {
    await put("sync-1", { agent: "syncer", title: "Old", content: "pelican" });
    expect(
      resultIds((await searchTool.run({ query: "pelican" }, asAgent("syncer"))).content),
    ).toEqual(["sync-1"]);
    await put("sync-1", { agent: "syncer", title: "New", content: "flamingo" });
    const gone = await searchTool.run({ query: "pelican" }, asAgent("syncer"));
    expect(gone.content).toBe('No documents match "pelican". Try other or fewer keywords.');
    expect(
      resultIds((await searchTool.run({ query: "flamingo" }, asAgent("syncer"))).content),
    ).toEqual(["sync-1"]);
    await admin("/api/admin/knowledge/sync-1", { method: "DELETE" });
    expect(
      resultIds((await searchTool.run({ query: "flamingo" }, asAgent("syncer"))).content),
    ).toEqual([]);
  });

  it("answers bad input with a tool error", async () => {
    for (const input of [
      {},
      { query: "" },
      { query: 7 },
      { query: "x", limit: 0 },
      { query: "x", limit: "3" },
    ]) {
      const result = await searchTool.run(input, asAgent("any"));
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^Invalid input for search: (query|limit): /);
    }
  });
});

describe("fetch_document", () => {
  const content = Array.from(
    { length: 2_000 },
    (_, i) => `line ${String(i).padStart(4, "0")}`,
  ).join("\n");

  it("returns the text in pages of 8,000 characters by default", async () => {
    await put("paged", { agent: "pager", title: "Long one", source: "manual", content });
    expect(content.length).toBe(19_999);
    const first = await fetchDocumentTool.run({ id: "paged" }, asAgent("pager"));
    expect(first.isError).toBeFalsy();
    expect(first.content).toBe(
      `Document: Long one\nid: paged\nsource: manual\nCharacters 0-8000 of 19999\n\n${content.slice(0, 8_000)}\n\n` +
        '[more: 11999 characters left; call fetch_document with {"id": "paged", "offset": 8000} to read on]',
    );
    const last = await fetchDocumentTool.run({ id: "paged", offset: 16_000 }, asAgent("pager"));
    expect(last.content).toBe(
      `Document: Long one\nid: paged\nsource: manual\nCharacters 16000-19999 of 19999\n\n${content.slice(16_000)}`,
    );
    const small = await fetchDocumentTool.run(
      { id: "paged", offset: 10, max_chars: 9 },
      asAgent("pager"),
    );
    expect(small.content).toContain(
      `Characters 10-19 of 19999\n\n${content.slice(10, 19)}\n\n[more: 19980`,
    );
    const capped = await fetchDocumentTool.run(
      { id: "paged", max_chars: 1_000_000 },
      asAgent("pager"),
    );
    expect(capped.content).toContain(
      `Characters 0-${FETCH_DOCUMENT_MAX_CHARS} of 19999\n\n${content.slice(0, FETCH_DOCUMENT_MAX_CHARS)}\n\n[more:`,
    );
  });

  it("refuses offsets past the end and bad input", async () => {
    await put("short-doc", { agent: "pager", title: "Short", content: "tiny" });
    const past = await fetchDocumentTool.run({ id: "short-doc", offset: 4 }, asAgent("pager"));
    expect(past).toEqual({
      isError: true,
      content: 'offset 4 is past the end of "short-doc" (4 characters).',
    });
    for (const input of [
      {},
      { id: "" },
      { id: "short-doc", offset: -1 },
      { id: "short-doc", max_chars: 0 },
    ]) {
      const result = await fetchDocumentTool.run(input, asAgent("pager"));
      expect(result).toMatchObject({
        isError: true,
        content: expect.stringMatching(/^Invalid input for fetch_document: /),
      });
    }
  });
});
