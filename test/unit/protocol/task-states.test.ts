/**
 * The one map of a task state's spellings (src/protocol/task-states.ts): every wire state has its
 * word and back, v0.3's proto spells canceled its own way, and a state the map does not know (a
 * peer's, a stored one) is written as a word the same way; a value read from outside the types is
 * a state only when it spells one.
 */
import { describe, expect, it } from "vitest";
import {
  isSettled,
  isTerminal,
  STATE_WORDS,
  stateOfWord,
  stateToV03Proto,
  stateWord,
  storedTaskState,
  TASK_STATES,
  taskStateOf,
} from "../../../src/protocol/task-states.ts";

describe("task state spellings", () => {
  it("maps every wire state to its word and back", () => {
    expect(TASK_STATES.map(stateWord)).toEqual(STATE_WORDS);
    expect(STATE_WORDS).toEqual([
      "submitted",
      "working",
      "completed",
      "failed",
      "canceled",
      "input-required",
      "rejected",
      "auth-required",
    ]);
    for (const state of TASK_STATES) expect(stateOfWord(stateWord(state))).toBe(state);
    expect(stateOfWord("input_required")).toBeUndefined();
  });

  it("spells canceled as the v0.3 proto does, every other state as the wire", () => {
    expect(TASK_STATES.map(stateToV03Proto)).toEqual([
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_COMPLETED",
      "TASK_STATE_FAILED",
      "TASK_STATE_CANCELLED",
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_REJECTED",
      "TASK_STATE_AUTH_REQUIRED",
    ]);
  });

  it("writes a state it does not know as a word, and anything else as nothing", () => {
    expect(stateWord("TASK_STATE_UNSPECIFIED")).toBe("unspecified");
    expect(stateWord("MESSAGE")).toBe("message");
    expect(stateWord(undefined)).toBe("");
    expect(stateWord(3)).toBe("");
  });

  it("settles at an end or a pause for the client, and ends only at an end", () => {
    expect(TASK_STATES.filter(isSettled).map(stateWord)).toEqual([
      "completed",
      "failed",
      "canceled",
      "input-required",
      "rejected",
      "auth-required",
    ]);
    expect(TASK_STATES.filter(isTerminal).map(stateWord)).toEqual([
      "completed",
      "failed",
      "canceled",
      "rejected",
    ]);
  });

  it("reads a state from an untyped value only when it spells one; a stored non-state throws", () => {
    for (const state of TASK_STATES) {
      expect(taskStateOf(state)).toBe(state);
      expect(storedTaskState(state)).toBe(state);
    }
    for (const value of ["MESSAGE", "completed", "TASK_STATE_CANCELLED", "toString", 3, null])
      expect(taskStateOf(value)).toBeUndefined();
    expect(() => storedTaskState("TASK_STATE_UNSPECIFIED")).toThrow(/not a state/);
    expect(() => storedTaskState(undefined)).toThrow(/not a state/);
  });
});
