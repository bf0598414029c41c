/**
 * One step of an agent program (src/programs/) inside a task object, in place of a model turn:
 * the program sees the task's newest user message, its first one, and the step's index for that
 * message (kept in the object's SQLite, so a restart resumes where it stopped), its effects
 * (artifacts, working statuses) are published through the task runtime, and its end becomes the
 * same step outcome a model turn gives the loop driver (auth-required: an input-required outcome
 * asking for authorization).
 */
import type { StepOutcome } from "../../loop/step-types.ts";
import type { AgentProgram } from "../../programs/types.ts";
import { emitArtifact } from "../runtime/answer-artifact.ts";
import type { StatusWriter } from "../runtime/status-change.ts";
import type { TaskState } from "../runtime/task-state.ts";

const CURSOR = { hook: "program", key: "cursor" } as const;

/** Where the program is: the history position of the message it answers, and its next step. */
interface Cursor {
  seq: number;
  next: number;
}

/** What a program's step reads and changes in the task. */
export type ProgramTask = Pick<TaskState, "unit" | "store" | "log" | "hookState"> & StatusWriter;

/** Runs the program's next step for the task's newest user message. */
export function runProgramStep(task: ProgramTask, program: AgentProgram): StepOutcome {
  const asks = task.store.historyAfter(0).filter(({ message }) => message.role === "ROLE_USER");
  const asked = asks.at(-1);
  if (!asked) return { kind: "failed", message: "The task has no message to answer." };
  const cursor = task.hookState.get<Cursor>(CURSOR.hook, CURSOR.key);
  const index = cursor?.seq === asked.seq ? cursor.next : 0;
  const opening = asks.length > 1 ? (asks[0]?.message ?? null) : null;
  const step = program.step(asked.message, index, opening);
  task.unit.run(() => {
    for (const effect of step.effects) {
      if (effect.kind === "artifact") emitArtifact(task, effect.artifact, effect);
      else task.setStatus("TASK_STATE_WORKING", { text: effect.text });
    }
    task.hookState.set(CURSOR.hook, CURSOR.key, {
      seq: asked.seq,
      next: index + 1,
    } satisfies Cursor);
  });
  const end = step.end;
  switch (end.kind) {
    case "continue":
      return { kind: "continue", afterMs: end.afterMs };
    case "complete":
      return {
        kind: "completed",
        stopReason: "end_turn",
        ...(end.parts ? { message: end.parts } : {}),
      };
    case "input-required":
      return { kind: "input-required", message: end.parts };
    case "auth-required":
      return { kind: "input-required", message: end.parts, authorization: true };
    case "reject":
      return { kind: "rejected", message: end.parts };
    case "fail":
      return { kind: "failed", message: end.text };
  }
}
