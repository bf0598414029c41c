-- The retention sweep's scan (src/store/task-queries.ts endedBefore, src/api/retention.ts): the
-- tasks in an ended state whose status last changed before a cutoff, found by index instead of a
-- scan of the whole table.
CREATE INDEX tasks_by_expiry ON tasks (state, updated_at);
-- The same for anonymous conversations alone (ANONYMOUS_RETENTION_DAYS), which a deployment that
-- keeps its users' tasks longer (RETENTION_DAYS 0 or more days) would otherwise read past every
-- user's old task to find; a partial index holds anonymous owners' rows only (anon-...).
CREATE INDEX tasks_by_anonymous_expiry ON tasks (state, updated_at)
  WHERE owner >= 'anon-' AND owner < 'anon.';
