-- Users and their API tokens. Tokens are stored only as SHA-256 hashes (hex).
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'admin')),
  -- JSON array of agent names this user may call; NULL = every agent.
  agents_json TEXT,
  -- OIDC / Cloudflare Access subject mapped to this user; NULL for token-only users.
  subject TEXT UNIQUE,
  -- JSON { taskTokens?, dayTokens?, monthTokens? } overriding the BUDGET_* vars; NULL = defaults.
  budget_json TEXT,
  created_at TEXT NOT NULL,
  disabled_at TEXT
);

CREATE TABLE tokens (
  hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  label TEXT NOT NULL DEFAULT '',
  -- The first characters of the token, to tell tokens apart in listings (never enough to use).
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE INDEX tokens_by_user ON tokens (user_id);
