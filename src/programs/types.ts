/**
 * Agent programs: deterministic agents that answer without a model. A program sits where the
 * model sits (the loop driver calls it one step per alarm instead of the model loop), so its
 * tasks run through the same engine as every agent: task object, event log, history, push
 * notifications, conversations and both protocol generations. Pure types: no I/O.
 */
import type { Artifact, Message, Part } from "../protocol/wire.ts";

/** Something a step does while the task keeps working. */
export type ProgramEffect =
  /** Publishes an artifact: a new one, a replacement, or (`append`) more parts of one. */
  | { kind: "artifact"; artifact: Artifact; append?: boolean; lastChunk?: boolean }
  /** A working status update with a message for people. */
  | { kind: "status"; text: string };

/** How a step ends the task's work for now. */
export type ProgramEnd =
  /** The task keeps working: the next step runs after `afterMs`. */
  | { kind: "continue"; afterMs: number }
  /** The task completes, with a final status message when `parts` are given. */
  | { kind: "complete"; parts?: Part[] }
  /** The task waits for the person (input-required); their next message resumes it. */
  | { kind: "input-required"; parts: Part[] }
  /** The task waits for the person's authorization (auth-required); their next message resumes it. */
  | { kind: "auth-required"; parts: Part[] }
  /** The agent refuses the task (rejected). */
  | { kind: "reject"; parts: Part[] }
  /** The task fails. */
  | { kind: "fail"; text: string };

/** One step: its effects in order, then how it ends. */
export interface ProgramStep {
  effects: ProgramEffect[];
  end: ProgramEnd;
}

/** A deterministic agent. */
export interface AgentProgram {
  /**
   * A direct answer to a new message (spec 1.0.1 §3.1.1: a Message instead of a Task, for
   * interactions that need no task), or null to start a task.
   */
  reply(message: Message): Part[] | null;
  /**
   * Step `index` (0, 1, ...) of the work that `message` asks for (the task's newest user
   * message); `opening` is the task's first user message when `message` follows it up (null for
   * the first), so a follow-up can be read in the light of what the task was started for.
   */
  step(message: Message, index: number, opening: Message | null): ProgramStep;
}
