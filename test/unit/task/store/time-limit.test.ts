/**
 * The task's work clock (time-limit.ts): it runs only while the task is working, so time queued
 * or waiting for a person does not count, and the deadline follows from it.
 */
import { describe, expect, it } from "vitest";
import type { TaskStateName } from "../../../../src/protocol/wire.ts";
import { advanceClock, NEW_CLOCK, taskDeadline } from "../../../../src/task/store/time-limit.ts";

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const status = (state: TaskStateName, seconds: number) => ({ state, timestamp: at(seconds) });

describe("the work clock", () => {
  it("counts working stretches only, and the deadline moves by the time not worked", () => {
    let clock = advanceClock(NEW_CLOCK, status("TASK_STATE_SUBMITTED", 0));
    expect(clock).toEqual(NEW_CLOCK);
    clock = advanceClock(clock, status("TASK_STATE_WORKING", 10)); // queued for 10 s
    clock = advanceClock(clock, status("TASK_STATE_WORKING", 20)); // a re-announce changes nothing
    expect(clock).toEqual({ workedMs: 0, workingSince: at(10) });
    clock = advanceClock(clock, status("TASK_STATE_INPUT_REQUIRED", 40));
    expect(clock).toEqual({ workedMs: 30_000, workingSince: null });
    clock = advanceClock(clock, status("TASK_STATE_SUBMITTED", 1000));
    clock = advanceClock(clock, status("TASK_STATE_WORKING", 1000));
    const record = { clock, createdAt: at(0) };
    expect(taskDeadline(record, 60)).toBe(Date.parse(at(1000)) + 30_000);
    expect(taskDeadline(record, 0)).toBeNull();
    // A task working from before the clock was kept counts from its creation.
    expect(taskDeadline({ clock: NEW_CLOCK, createdAt: at(0) }, 60)).toBe(Date.parse(at(60)));
  });
});
