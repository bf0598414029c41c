/**
 * Tool `fetch_document` (domain `knowledge`): the text of one knowledge base document the agent
 * may see, by the id `search` gave, in pages: `max_chars` characters (default 8,000, at most
 * 9,500) from `offset`, with a line saying where the next page starts. An unknown id, or another
 * agent's document, is a tool error that says to use `search`.
 */
import { z } from "zod";
import type { ToolResult } from "../../loop/contracts.ts";
import { getDocument } from "../../store/knowledge.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool, maxCharsField, requiredText } from "../input.ts";

/** Default and maximum page size of `fetch_document`. */
export const FETCH_DOCUMENT_DEFAULT_CHARS = 8_000;
export const FETCH_DOCUMENT_MAX_CHARS = 9_500;

const toolInput = lazy(() =>
  z.strictObject({
    id: requiredText(200).describe("Document id, from search results."),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Character offset to start at (default 0)."),
    max_chars: maxCharsField(FETCH_DOCUMENT_DEFAULT_CHARS, FETCH_DOCUMENT_MAX_CHARS),
  }),
);

const fail = (content: string): ToolResult => ({ content, isError: true });

/** The `fetch_document` tool. */
export const fetchDocumentTool = defineTool({
  name: "fetch_document",
  domain: "knowledge",
  readOnly: true,
  description:
    "Read a knowledge base document by the id search returned. Returns one page of text " +
    `(max_chars, default ${FETCH_DOCUMENT_DEFAULT_CHARS}) from offset; the answer says the ` +
    "offset of the next page when there is more.",
  input: toolInput,
  async run({ id, offset = 0, max_chars }, context) {
    const maxChars = Math.min(max_chars ?? FETCH_DOCUMENT_DEFAULT_CHARS, FETCH_DOCUMENT_MAX_CHARS);
    const page = await getDocument(context.db, { agent: context.agent, id, offset, maxChars });
    if (!page) {
      return fail(`No document with id ${JSON.stringify(id)}. Use search to find document ids.`);
    }
    if (offset >= page.totalChars && page.totalChars > 0) {
      return fail(
        `offset ${offset} is past the end of ${JSON.stringify(id)} (${page.totalChars} characters).`,
      );
    }
    const end = page.nextOffset ?? page.totalChars;
    const lines = [`Document: ${page.title}`, `id: ${page.id}`];
    if (page.source) lines.push(`source: ${page.source}`);
    lines.push(`Characters ${offset}-${end} of ${page.totalChars}`, "", page.text);
    if (page.nextOffset !== null) {
      lines.push(
        "",
        `[more: ${page.totalChars - page.nextOffset} characters left; call fetch_document with ` +
          `{"id": ${JSON.stringify(id)}, "offset": ${page.nextOffset}} to read on]`,
      );
    }
    return { content: lines.join("\n") };
  },
});
