-- Keys a deployment makes for itself: random, made on first use, never sent anywhere.
-- `trace-ids` keys the hashes that stand for task and conversation ids in exported spans
-- (src/trace/exported-ids.ts, docs/traces.md).
CREATE TABLE deployment_keys (
  name TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  created_at TEXT NOT NULL
);
