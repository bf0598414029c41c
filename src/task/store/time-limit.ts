/**
 * The task's wall-clock limit (`MAX_TASK_SECONDS`) beside its turn and token limits: the clock
 * runs while the task is working, from the status timestamps kept in the task's row (its
 * {@link TaskClock}), so it holds across restarts; time spent queued behind another task of
 * the conversation, or waiting for a person (input-required, auth-required), is not counted. Time
 * waiting for a sub-agent, for a retry or in a turn is. The loop driver checks the deadline before
 * each step and sets its alarm no later than it, so a turn in flight at the deadline is stopped;
 * the task then completes with `stopReason: "time_limit"` like the turn limit (step-end.ts). Pure.
 */
import type { StepOutcome } from "../../loop/step-types.ts";
import type { TaskStatus } from "../../protocol/wire.ts";

/** How long a task has worked: finished working stretches, and the start of the current one. */
export interface TaskClock {
  /** Milliseconds of working stretches that have ended. */
  workedMs: number;
  /** When the current working stretch began (a status timestamp), or null when not working. */
  workingSince: string | null;
}

/** A task's clock before it first works. */
export const NEW_CLOCK: TaskClock = { workedMs: 0, workingSince: null };

/** The clock after the task takes `status`: a stretch starts on working, ends on anything else. */
export function advanceClock(clock: TaskClock, status: TaskStatus): TaskClock {
  const working = status.state === "TASK_STATE_WORKING";
  if (working && clock.workingSince === null) return { ...clock, workingSince: status.timestamp };
  if (!working && clock.workingSince !== null) {
    const stretch = Date.parse(status.timestamp) - Date.parse(clock.workingSince);
    return { workedMs: clock.workedMs + Math.max(0, stretch), workingSince: null };
  }
  return clock;
}

/**
 * When a working task's time is up (epoch ms), or null without a limit (`maxTaskSeconds` 0). A
 * task working since before the clock was kept counts from its creation.
 */
export function taskDeadline(
  record: { clock: TaskClock; createdAt: string },
  maxTaskSeconds: number,
): number | null {
  if (maxTaskSeconds <= 0) return null;
  const since = Date.parse(record.clock.workingSince ?? record.createdAt);
  return since + maxTaskSeconds * 1000 - record.clock.workedMs;
}

/** The abort reason of a step stopped at the deadline (a cancel's is another). */
export class TimeLimitReached extends Error {
  constructor() {
    super("the task's time limit was reached");
    this.name = "TimeLimitReached";
  }
}

/** Whether a step's abort signal was fired by the deadline. */
export function stoppedByTimeLimit(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof TimeLimitReached;
}

/** How a task past its deadline ends: completed, with what it has (step-end.ts adds what remains). */
export function timeLimitOutcome(maxTaskSeconds: number, midTurn: boolean): StepOutcome {
  const when = midTurn ? "Stopped during a turn" : "Stopped";
  return {
    kind: "completed",
    stopReason: "time_limit",
    note: `${when}: the time limit (${maxTaskSeconds} s of work, MAX_TASK_SECONDS) was reached.`,
  };
}
