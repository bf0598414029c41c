-- Tasks that events and time start (src/triggers/).

-- One row per webhook delivery: a redelivery (same delivery id) finds the task of the first.
CREATE TABLE webhook_deliveries (
  webhook TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  owner TEXT NOT NULL,
  event TEXT,
  received_at TEXT NOT NULL,
  redeliveries INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (webhook, delivery_id)
);

-- One row per scheduled tick that ran: the primary key makes a tick run once, however many
-- isolates the cron trigger fires in.
CREATE TABLE schedule_runs (
  schedule TEXT NOT NULL,
  tick TEXT NOT NULL,
  task_id TEXT,
  agent TEXT NOT NULL,
  owner TEXT NOT NULL,
  started_at TEXT NOT NULL,
  error TEXT,
  PRIMARY KEY (schedule, tick)
);
CREATE INDEX schedule_runs_owner ON schedule_runs (owner, started_at);
