/**
 * Tool `search` (domain `knowledge`): full-text search of the knowledge base documents the agent
 * may see (its own and those for every agent). Returns at most `SEARCH_MAX_RESULTS` results (3 by
 * default) whatever `limit` asks (snippets of more documents cost context without helping, and
 * the model reads the documents themselves with `fetch_document`), each with id, title, source
 * and a snippet, and tells the model to call `fetch_document` with an id for the full text.
 * Any query text is accepted: it is reduced to quoted words (src/store/knowledge.ts).
 */
import { z } from "zod";
import { searchDocuments, toFtsQuery } from "../../store/knowledge.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool } from "../input.ts";

const toolInput = lazy(() =>
  z.strictObject({
    query: z
      .string()
      .trim()
      .min(1, "is required")
      .max(1000, "is longer than 1000 characters")
      .describe("Keywords to look for (plain words; no operators)."),
    limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Most results wanted (default and maximum: the deployment's cap, 3 unless set)."),
  }),
);

/** The `search` tool. */
export const searchTool = defineTool({
  name: "search",
  domain: "knowledge",
  readOnly: true,
  description:
    "Search the knowledge base (documents provided for this agent) by keywords. Returns a few " +
    "results (3 unless the deployment sets another cap), best first, each with an id, title, " +
    "source and a snippet; call fetch_document with an id to read the full text.",
  input: toolInput,
  async run({ query, limit: wanted }, context) {
    const cap = context.config.searchMaxResults;
    const limit = Math.min(wanted ?? cap, cap);
    const shown = JSON.stringify(query.slice(0, 200));
    if (toFtsQuery(query) === null) {
      return { content: `No searchable words in ${shown}: search with plain keywords.` };
    }
    const hits = await searchDocuments(context.db, { agent: context.agent, query, limit });
    if (hits.length === 0) {
      return { content: `No documents match ${shown}. Try other or fewer keywords.` };
    }
    const lines = [
      `${hits.length} ${hits.length === 1 ? "document matches" : "documents match"} ${shown} (best first, at most ${cap} shown):`,
    ];
    hits.forEach((hit, i) => {
      lines.push("", `${i + 1}. ${hit.title}`, `   id: ${hit.id}`);
      if (hit.source) lines.push(`   source: ${hit.source}`);
      lines.push(`   ${hit.snippet.replace(/\s+/g, " ").trim()}`);
    });
    lines.push(
      "",
      'To read a document in full, call fetch_document with its id, e.g. {"id": ' +
        `${JSON.stringify(hits[0]?.id ?? "")}}.`,
    );
    return { content: lines.join("\n") };
  },
});
