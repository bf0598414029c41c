/**
 * A model turn as one value: what a step of the loop is told and given, prepared once per step
 * (prepare-turn.ts) from the task, its agent, the configuration and the step's signal, and handed
 * whole to whatever reads it (the system prompt, the session start, compaction, the step's
 * dependencies), so no one threads the task's record, agent and configuration through builders of
 * their own. Types only.
 *
 * A turn grows in three layers, each a field set in one phase of prepare-turn.ts:
 *  - {@link TurnSource}: what the loop driver has (the task, its record, the agent, the step's
 *    signal, its sub-agents);
 *  - {@link TurnInputs}: what the turn reaches (its tools, the workspace, memory, scratchpad,
 *    remote agents, who it delegates to, whether its environment note is still to be made, the
 *    live messages it took);
 *  - {@link Turn}: what the turn is told (the system prompt, the environment note this step made,
 *    with what the session start found).
 * A new input of a turn is a field here and a line in the phase that sets it.
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AgentDefinition } from "../../agents/identity.ts";
import type { Config } from "../../config/config.ts";
import type { ToolRegistry } from "../../loop/calls/tool-registry.ts";
import type { MemoryAccess, RemoteAgents, Subagents } from "../../loop/contracts.ts";
import type { SessionNoteFacts } from "../../loop/prompt/environment.ts";
import type { PromptInputs } from "../../loop/prompt/prompt.ts";
import type { Message } from "../../protocol/wire.ts";
import type { WorkspaceApi } from "../../workspace/types.ts";
import type { EventSink } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";
import type { TaskRecord } from "../store/task-store.ts";

/** What a turn reads and changes in the task object. */
export type TurnTask = Pick<
  TaskState,
  | "unit"
  | "store"
  | "log"
  | "conversation"
  | "pending"
  | "journal"
  | "loopState"
  | "hookState"
  | "modelCalls"
  | "modelRequests"
  | "background"
  | "budgetHint"
  | "grant"
  | "newOwner"
  | "contextLink"
> &
  Pick<EventSink, "emitAnswerChunk" | "emitHarnessEvent">;

/** What the loop driver prepares a turn from. */
export interface TurnSource {
  env: Env;
  config: Config;
  task: TurnTask;
  /** The task's record, as the step found it. */
  record: TaskRecord;
  /** The agent the task runs (on the deployment's default model when its file names none). */
  agent: AgentDefinition;
  /** Aborted when the task is canceled or its time limit stops the step. */
  signal: AbortSignal;
  /** When the step must be done (ToolContext.deadline); absent: no bound. */
  deadline?: number;
  /** The task's sub-agents: the types it may call and the `task` tool's handle. */
  subagents: Subagents;
}

/** Whom the system prompt names: the sub-agents the task may call, or who called it. */
export type Delegation = NonNullable<PromptInputs["delegation"]>;

/** What a turn reaches, gathered before it is told anything. */
export interface TurnInputs extends TurnSource {
  /** The tools the model gets this turn (turn-tools.ts). */
  tools: ToolRegistry;
  /** Whether those tools reach the task's workspace object (see tools/catalog.ts). */
  files: boolean;
  /** The system prompt's block naming the MCP servers that could not list their tools. */
  unavailable: TextBlockParam | null;
  /** The task's workspace: its root agent's, for the owner (sub-agents share it). */
  workspace: WorkspaceApi;
  /** Whether that workspace is the agent's own (its object also keeps the agent's memory). */
  ownWorkspace: boolean;
  /** The agent's memory as this task reads and writes it. */
  memory: MemoryAccess;
  /** The scratchpad the task shares (its conversation's, see lineage.ts). */
  scratchId: string;
  /** Remote A2A agents, for the a2a_* tools and the descriptions of remote sub-agents. */
  remote: RemoteAgents;
  delegation: Delegation;
  /** The task's environment note is still to be made: this is its first model step. */
  environmentDue: boolean;
  /**
   * The live messages sent while the task worked that this turn took into its conversation as
   * user turns (task/conversation/live-input.ts), oldest first; usually none.
   */
  live: Message[];
}

/** The environment note a task's first step made, and what the session start found for it. */
export interface MadeNote {
  text: string;
  session: SessionNoteFacts | null;
}

/** One model turn, ready for the loop: what it reaches and what it is told. */
export interface Turn extends TurnInputs {
  /** The system prompt: cache-ordered, the unavailable MCP servers' block last. */
  system: TextBlockParam[];
  /** The note this step put in front of the task's first message; null after the first step. */
  environment: MadeNote | null;
}
