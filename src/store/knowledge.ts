/**
 * The knowledge base in D1 (migrations/0002_create_knowledge.sql): documents, each for one agent
 * or for every agent ('*'), indexed by an FTS5 table the triggers keep in sync. Search ranks by
 * bm25 (title weighted 4x) and returns snippet()s; the model's free text becomes a query of quoted
 * terms joined by OR (see {@link toFtsQuery}), so no input is an FTS5 syntax error. Offsets and
 * lengths are in characters as SQLite counts them (code points).
 */

/** The `agent` value of documents every agent sees. */
export const ALL_AGENTS = "*";

/** A document as uploaded. */
export interface DocumentInput {
  id: string;
  /** An agent name, or {@link ALL_AGENTS}. */
  agent: string;
  title: string;
  source?: string | null;
  content: string;
}

/** A document as listed (no content). */
export interface DocumentSummary {
  id: string;
  agent: string;
  title: string;
  source: string | null;
  chars: number;
  createdAt: string;
  updatedAt: string;
}

/** One search result. */
export interface SearchHit {
  id: string;
  agent: string;
  title: string;
  source: string | null;
  /** A fragment of the content around the matches, matched terms in **bold**. */
  snippet: string;
  /** bm25 score: lower is better. */
  score: number;
}

/** A page of a document's content. */
export interface DocumentPage {
  id: string;
  agent: string;
  title: string;
  source: string | null;
  offset: number;
  text: string;
  totalChars: number;
  /** Where the next page starts, or null when this page reaches the end. */
  nextOffset: number | null;
}

const OPERATORS = new Set(["AND", "OR", "NOT", "NEAR"]);
const MAX_TERMS = 32;
const MAX_TERM_CHARS = 64;

/**
 * Turns free text into a safe FTS5 query: the words (runs of letters, digits and combining marks)
 * each in double quotes, joined by OR and ranked by bm25 downstream. FTS5 operators (AND, OR, NOT,
 * NEAR in capitals), column filters (`title:`, `content:`, `{...}:`), prefix stars, quotes,
 * parentheses and other punctuation are dropped. Null when nothing searchable is left.
 */
export function toFtsQuery(text: string): string | null {
  const cleaned = text
    .replace(/\{[^}]*\}\s*:/g, " ")
    .replace(/(^|[^\p{L}\p{N}])(title|content)\s*:/giu, "$1 ");
  const terms: string[] = [];
  for (const match of cleaned.matchAll(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu)) {
    const word = match[0];
    if (OPERATORS.has(word)) continue;
    const term = word.toLowerCase().slice(0, MAX_TERM_CHARS);
    if (!terms.includes(term)) terms.push(term);
    if (terms.length === MAX_TERMS) break;
  }
  return terms.length === 0 ? null : terms.map((t) => `"${t}"`).join(" OR ");
}

/** Creates or replaces a document; `created` says which. */
export async function upsertDocument(
  db: D1Database,
  doc: DocumentInput,
): Promise<{ created: boolean; updatedAt: string }> {
  const now = new Date().toISOString();
  const [existing] = await db.batch([
    db.prepare("SELECT 1 AS found FROM documents WHERE id = ?1").bind(doc.id),
    db
      .prepare(
        `INSERT INTO documents (id, agent, title, source, content, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
         ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, title = excluded.title,
           source = excluded.source, content = excluded.content, updated_at = excluded.updated_at`,
      )
      .bind(doc.id, doc.agent, doc.title, doc.source ?? null, doc.content, now),
  ]);
  return { created: (existing?.results.length ?? 0) === 0, updatedAt: now };
}

/** Deletes a document; false when there was none. */
export async function deleteDocument(db: D1Database, id: string): Promise<boolean> {
  const result = await db.prepare("DELETE FROM documents WHERE id = ?1").bind(id).run();
  return result.meta.changes > 0;
}

/** Lists documents by id (optionally one agent's, exactly), `limit` at a time after `after`. */
export async function listDocuments(
  db: D1Database,
  options: { agent?: string; after?: string; limit: number },
): Promise<{ documents: DocumentSummary[]; nextCursor: string | null }> {
  const { results } = await db
    .prepare(
      `SELECT id, agent, title, source, length(content) AS chars, created_at, updated_at
       FROM documents WHERE (?1 IS NULL OR agent = ?1) AND id > ?2 ORDER BY id LIMIT ?3`,
    )
    .bind(options.agent ?? null, options.after ?? "", options.limit + 1)
    .all<{
      id: string;
      agent: string;
      title: string;
      source: string | null;
      chars: number;
      created_at: string;
      updated_at: string;
    }>();
  const page = results.slice(0, options.limit);
  return {
    documents: page.map((r) => ({
      id: r.id,
      agent: r.agent,
      title: r.title,
      source: r.source,
      chars: r.chars,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    })),
    nextCursor: results.length > options.limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/** Full-text search over the documents `agent` may see (its own and '*'), best first. */
export async function searchDocuments(
  db: D1Database,
  options: { agent: string; query: string; limit: number },
): Promise<SearchHit[]> {
  const match = toFtsQuery(options.query);
  if (match === null || options.limit < 1) return [];
  const { results } = await db
    .prepare(
      `SELECT d.id, d.agent, d.title, d.source,
         snippet(documents_fts, 1, '**', '**', '…', 32) AS snippet,
         bm25(documents_fts, 4.0, 1.0) AS score
       FROM documents_fts JOIN documents d ON d.seq = documents_fts.rowid
       WHERE documents_fts MATCH ?1 AND d.agent IN (?2, '*')
       ORDER BY score, d.id LIMIT ?3`,
    )
    .bind(match, options.agent, options.limit)
    .all<SearchHit>();
  return results;
}

/** A page of a document `agent` may see, or null when there is none (or it is another agent's). */
export async function getDocument(
  db: D1Database,
  options: { agent: string; id: string; offset?: number; maxChars?: number },
): Promise<DocumentPage | null> {
  const offset = Math.max(0, Math.floor(options.offset ?? 0));
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? 8_000));
  const row = await db
    .prepare(
      `SELECT id, agent, title, source, substr(content, ?1 + 1, ?2) AS text, length(content) AS totalChars
       FROM documents WHERE id = ?3 AND agent IN (?4, '*')`,
    )
    .bind(offset, maxChars, options.id, options.agent)
    .first<Omit<DocumentPage, "offset" | "nextOffset">>();
  if (!row) return null;
  const end = offset + maxChars;
  return { ...row, offset, nextOffset: end < row.totalChars ? end : null };
}
