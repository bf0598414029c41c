-- Knowledge base: documents an operator uploads (PUT /api/admin/knowledge/:id) for the `search`
-- and `fetch_document` tools. `agent` is an agent name, or '*' for a document every agent sees.
-- `id` is the document's key (unique, what tools and admin routes use). `seq` is an explicit
-- INTEGER PRIMARY KEY only because the FTS5 index below is keyed by rowid: an implicit rowid may
-- change on VACUUM, an aliased one never does.
CREATE TABLE documents (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  agent TEXT NOT NULL,
  title TEXT NOT NULL,
  source TEXT,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE INDEX documents_by_agent ON documents (agent, id);

-- Full-text index over title and content, an external-content FTS5 table (the text is stored
-- once, in `documents`). Tokenizer: unicode61 (case folding, diacritics removed) with the
-- Porter stemmer, so "running" finds "run". The triggers keep it in sync with `documents`.
CREATE VIRTUAL TABLE documents_fts USING fts5(
  title,
  content,
  content = 'documents',
  content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
  INSERT INTO documents_fts (rowid, title, content) VALUES (new.seq, new.title, new.content);
END;

CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
  INSERT INTO documents_fts (documents_fts, rowid, title, content)
  VALUES ('delete', old.seq, old.title, old.content);
END;

CREATE TRIGGER documents_fts_update AFTER UPDATE OF title, content ON documents BEGIN
  INSERT INTO documents_fts (documents_fts, rowid, title, content)
  VALUES ('delete', old.seq, old.title, old.content);
  INSERT INTO documents_fts (rowid, title, content) VALUES (new.seq, new.title, new.content);
END;
