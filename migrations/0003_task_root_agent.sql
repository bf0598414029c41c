-- Sub-agent tasks are listed under the agent of the task that started them (their root).
-- root_agent is the agent of the task's root task: its own agent for a task a client started.
ALTER TABLE tasks ADD COLUMN root_agent TEXT;
UPDATE tasks SET root_agent = agent WHERE root_agent IS NULL;
CREATE INDEX tasks_by_root_agent ON tasks (owner, root_agent, updated_at DESC, id DESC);
