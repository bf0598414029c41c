-- A user's consent to the privacy policy (GET /api/privacy): the version consented to and when
-- (ISO 8601). NULL = none (or withdrawn). Exported and erased with the user's row.
ALTER TABLE users ADD COLUMN consent_version TEXT;
ALTER TABLE users ADD COLUMN consented_at TEXT;
