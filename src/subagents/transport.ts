/**
 * How a parent reaches a child, whatever runs it: a task object of this Worker, through the task
 * gateway like every other caller (gateway/local-children.ts, handed to the task object by the
 * Worker: {@link LocalTransportFor}), or a remote A2A agent (remote.ts). One code path above this
 * interface; only the transport differs.
 */
import type { SubagentCall } from "../loop/contracts.ts";
import type { UserBudget } from "../protocol/app-types.ts";
import type { Part } from "../protocol/wire.ts";

/** The lineage of a sub-agent's task: what a child is told of the tree it joins. */
export interface Lineage {
  parentTaskId: string;
  rootTaskId: string;
  rootAgent: string;
  /** The scratchpad it shares (task/store/lineage.ts scratchIdOf of the root). */
  scratchId: string;
}

/** The parent a child is started for. */
export interface ParentTask {
  taskId: string;
  agent: string;
  owner: string;
  /** The user object counting the parent's budgets (a child counts into the same). */
  counters: string | null;
  /** The owner's budget overrides the parent carries (a child carries the same). */
  budget?: UserBudget | null;
  traceId: string;
  lineage: Lineage;
}

/** What a child's state amounts to, read by polling (remote children). */
export interface PolledChild {
  state: string;
  text: string;
  question?: Part[];
}

/** A way to run children. */
export interface ChildTransport {
  start(
    parent: ParentTask,
    call: SubagentCall,
  ): Promise<{ ok: true; childTaskId: string } | { ok: false; error: string }>;
  /** Passes a person's answer to the child `childTaskId` of agent `agent`. */
  answer(childTaskId: string, parts: Part[], agent: string): Promise<void>;
  /** Cancels the child `childTaskId` of agent `agent`. */
  cancel(childTaskId: string, agent: string): Promise<void>;
  /** For children that cannot report back (remote): their current state. */
  poll?(childTaskId: string): Promise<PolledChild>;
}

/** The parent task as its local children's caller: whose they are, who pays, which trace. */
export type ParentCaller = Pick<ParentTask, "owner" | "counters" | "traceId">;

/**
 * The transport of local children (the task gateway's): the Worker hands it to the task object
 * (worker.ts), since the gateway stands above the task objects and this folder below them.
 */
export type LocalTransportFor = (env: Env, parent: ParentCaller) => ChildTransport;

/** Message metadata that tells a receiving harness it runs as someone's sub-agent. */
export const SUBAGENT_METADATA = "urn:a2a-edge-harness:subagent";

/**
 * The content of {@link SUBAGENT_METADATA}. Nothing in it works as a capability on the caller's
 * deployment: no task or context id leaves it.
 */
export interface SubagentMetadata {
  /** A hash of the calling task's id: tells the callee's logs which calls belong together. */
  correlationId: string;
  parentAgent: string;
  /** The conversation's scratchpad id (a shared bucket gives both sides the same files). */
  scratchId: string;
}
