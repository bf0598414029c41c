/**
 * What the `task` tool and the parent's loop need from sub-agents, whatever the transport: start a
 * child task for a tool call, pass a person's answer down to a child that asked, cancel a child.
 * In-process children are task objects of this Worker (local.ts); remote ones are A2A agents.
 */
import type { Part } from "../protocol/wire.ts";

/** A sub-agent type the `task` tool accepts. */
export interface SubagentType {
  name: string;
  description: string;
  /** `local` for an agent of this Worker, else the remote registry entry's name. */
  transport: string;
}

/** One delegation: who, what, and the tool call it answers (which makes starting idempotent). */
export interface SubagentCall {
  agent: string;
  description: string;
  prompt: string;
  callId: string;
}

/** Sub-agents as the parent task sees them. */
export interface Subagents {
  /** The types this task may delegate to (empty for a sub-agent's own task). */
  types(): SubagentType[];
  /** Starts (or finds, for a retried call) the child task; its id, or why it could not start. */
  start(
    call: SubagentCall,
  ): Promise<{ ok: true; childTaskId: string } | { ok: false; error: string }>;
  /** Passes a person's answer to a child that asked a question. */
  answer(childTaskId: string, parts: Part[]): Promise<void>;
  /** Cancels a child (best effort; retried by the caller's schedule). */
  cancel(childTaskId: string): Promise<void>;
}
