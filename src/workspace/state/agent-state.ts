/**
 * agent_state.json: where the work stands, kept by the harness at the end of each task (the
 * reference design's primary state file): the iteration (tasks ended in this workspace), the last
 * agents, the workflow status, the recently completed tasks, the completed and pending items (from
 * PROGRESS.json), a context summary, the next agent and where to continue. Bounded: a handful of
 * entries per list. Pure: no I/O.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { parseJsonFile } from "./json-file.ts";
import type { Progress } from "./state-files.ts";

export const AGENT_STATE_FILE = "agent_state.json";
const LAST_AGENTS = 5;
const COMPLETED_TASKS = 10;
const ITEMS = 10;
const ITEM_CHARS = 200;

const WORKFLOW_STATUSES = ["in_progress", "waiting", "blocked", "completed", "failed"] as const;
type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** agent_state.json, built on first use. */
const agentStateSchema = lazy(() =>
  z.strictObject({
    iteration: z.number().int().min(0),
    lastAgents: z.array(z.string().max(64)).max(LAST_AGENTS),
    workflowStatus: z.enum(WORKFLOW_STATUSES),
    completedTasks: z
      .array(
        z.strictObject({
          task: z.string().max(64),
          agent: z.string().max(64),
          state: z.string().max(40),
          endedAt: z.string().max(40),
        }),
      )
      .max(COMPLETED_TASKS),
    completedItems: z.array(z.string().max(ITEM_CHARS)).max(ITEMS),
    pendingItems: z.array(z.string().max(ITEM_CHARS)).max(ITEMS),
    contextSummary: z.string().max(1_000),
    nextAgent: z.string().max(64).nullable(),
    continueFrom: z.string().max(520).nullable(),
    updatedAt: z.string().max(40),
  }),
);
export type AgentState = z.infer<ReturnType<typeof agentStateSchema>>;

/** agent_state.json's text, checked (null text: no file). */
export function parseAgentState(text: string | null): {
  state: AgentState | null;
  invalid?: string;
} {
  const { value, invalid } = parseJsonFile(agentStateSchema(), text);
  return invalid ? { state: null, invalid } : { state: value };
}

/**
 * Whether agent_state.json's text lists `taskId` as ended in `state` (its end note written). A
 * task that ended otherwise before (its first end rolled back, then run again) is not: the later
 * note is written.
 */
export function endedHere(text: string | null, taskId: string, state: string): boolean {
  const tasks = parseAgentState(text).state?.completedTasks ?? [];
  return tasks.some((t) => t.task === taskId && t.state === state);
}

const clipped = (items: readonly string[]) =>
  items.map((i) => (i.length > ITEM_CHARS ? `${i.slice(0, ITEM_CHARS - 1)}…` : i));

/** The workflow's status after a task ended in `taskState`, from what PROGRESS.json says. */
function statusOf(taskState: string, progress: Progress | null): WorkflowStatus {
  if (taskState === "TASK_STATE_FAILED") return "failed";
  if ((progress?.blockers.length ?? 0) > 0) return "blocked";
  if (taskState === "TASK_STATE_INPUT_REQUIRED" || taskState === "TASK_STATE_AUTH_REQUIRED")
    return "waiting";
  return (progress?.remaining.length ?? 0) > 0 ? "in_progress" : "completed";
}

/** The state after a task ended (`before`: the previous state, null for the first task). */
export function nextAgentState(
  before: AgentState | null,
  task: { taskId: string; agent: string; state: string; at: string; asked: string },
  progress: Progress | null,
): AgentState {
  const ended = { task: task.taskId, agent: task.agent, state: task.state, endedAt: task.at };
  const lastAgents = [...(before?.lastAgents ?? []).filter((a) => a !== task.agent), task.agent];
  const fallback = `Last asked: ${task.asked.replace(/\s+/g, " ").trim()}`.slice(0, 1_000);
  return {
    iteration: (before?.iteration ?? 0) + 1,
    lastAgents: lastAgents.slice(-LAST_AGENTS),
    workflowStatus: statusOf(task.state, progress),
    completedTasks: [...(before?.completedTasks ?? []), ended].slice(-COMPLETED_TASKS),
    completedItems: clipped((progress?.accomplished ?? []).slice(-ITEMS)),
    pendingItems: clipped((progress?.remaining ?? []).slice(0, ITEMS)),
    contextSummary: progress?.summary ?? fallback,
    nextAgent: progress?.nextAgent ?? null,
    continueFrom: progress?.continueFrom ?? null,
    updatedAt: task.at,
  };
}
