/**
 * `write_todos`: the agent's execution plan. Each call replaces the plan, which is published on
 * the task's stream (harness event `plan`, with the items in `detail.todos`) and kept in the
 * task history.
 */
import { z } from "zod";
import { defineTool } from "./input.ts";

const Todo = z.strictObject({
  content: z.string().trim().min(1).max(500),
  status: z.enum(["pending", "in_progress", "completed"]),
});
const Input = z.strictObject({ todos: z.array(Todo).min(1, "give at least one item").max(50) });

const MARK = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;

export const writeTodosTool = defineTool({
  name: "write_todos",
  domain: "plan",
  description:
    "Write or update your plan for this task as a list of steps with a status (pending, in_progress, completed). Use it for work of more than three steps; send the whole list each time, with exactly one item in progress.",
  input: Input,
  async run({ todos }, context) {
    const done = todos.filter((t) => t.status === "completed").length;
    const rendered = todos.map((t) => `${MARK[t.status]} ${t.content}`).join("\n");
    context.emit({
      kind: "plan",
      text: `Plan: ${done} of ${todos.length} done`,
      detail: { todos },
    });
    return { content: `Plan saved (${done}/${todos.length} done):\n${rendered}` };
  },
});
