import { describe, expect, it } from "vitest";
import { isSettled, isTerminal, TASK_STATES } from "../../../../src/protocol/task-states.ts";
import {
  canTransition,
  IllegalTransitionError,
  transition,
} from "../../../../src/task/runtime/state-machine.ts";

describe("task state machine", () => {
  it("knows the terminal and interrupted states of the spec", () => {
    expect(TASK_STATES.filter(isTerminal)).toEqual([
      "TASK_STATE_COMPLETED",
      "TASK_STATE_FAILED",
      "TASK_STATE_CANCELED",
      "TASK_STATE_REJECTED",
    ]);
    expect(TASK_STATES.filter((s) => isSettled(s) && !isTerminal(s))).toEqual([
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_AUTH_REQUIRED",
    ]);
  });

  it("allows the lifecycle submitted -> working -> completed", () => {
    expect(transition("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")).toBe("TASK_STATE_WORKING");
    expect(transition("TASK_STATE_WORKING", "TASK_STATE_COMPLETED")).toBe("TASK_STATE_COMPLETED");
  });

  it("lets an interrupted task resume and be canceled", () => {
    expect(canTransition("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING")).toBe(true);
    expect(canTransition("TASK_STATE_AUTH_REQUIRED", "TASK_STATE_CANCELED")).toBe(true);
    expect(canTransition("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED")).toBe(false);
  });

  it("never leaves a terminal state", () => {
    for (const from of TASK_STATES.filter(isTerminal)) {
      for (const to of TASK_STATES) expect(canTransition(from, to)).toBe(false);
    }
    expect(() => transition("TASK_STATE_COMPLETED", "TASK_STATE_WORKING")).toThrow(
      IllegalTransitionError,
    );
  });

  it("cannot skip from submitted to completed", () => {
    expect(() => transition("TASK_STATE_SUBMITTED", "TASK_STATE_COMPLETED")).toThrow(
      "illegal task transition TASK_STATE_SUBMITTED -> TASK_STATE_COMPLETED",
    );
  });
});
