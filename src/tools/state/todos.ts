/**
 * `write_todos`: the agent's execution plan. Each call replaces the plan, which is published on
 * the task's stream (harness event `plan`, with the items in `detail.todos`) and kept in the
 * task history. Every step carries the agent that owns it (reference 001 US1: agent-tagged
 * steps): the one it is delegated to, given as `agent` or as a leading `[agent]` tag in the text
 * (taken out of it), else the agent writing the plan. Clients show the tag of delegated steps.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";
import { defineTool } from "../input.ts";

/** An agent's name (the harness's are kebab-case); a tag that is not one stays in the text. */
const AGENT_NAME = /^[a-z][a-z0-9-]{0,62}$/;
const LEADING_TAG = /^\[([A-Za-z][A-Za-z0-9-]{0,62})\]\s*/;

const todoSchema = lazy(() =>
  z.strictObject({
    content: z.string().trim().min(1).max(500),
    status: z.enum(["pending", "in_progress", "completed"]),
    agent: z
      .string()
      .regex(AGENT_NAME, "an agent's name: lowercase letters, digits and '-'")
      .optional()
      .describe(
        "The agent that owns the step: the sub-agent you delegate it to; omit for your own",
      ),
  }),
);
const toolInput = lazy(() =>
  z.strictObject({ todos: z.array(todoSchema()).min(1, "give at least one item").max(50) }),
);

/** A plan step as published: its text, status and owning agent. */
export interface PlanStep {
  content: string;
  status: "pending" | "in_progress" | "completed";
  agent: string;
}

const MARK = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const;

/** The step with its owner: `agent`, else a leading `[agent]` tag of the text, else `self`. */
export function ownedStep(todo: z.output<ReturnType<typeof todoSchema>>, self: string): PlanStep {
  const tag = LEADING_TAG.exec(todo.content);
  const tagged = tag?.[1]?.toLowerCase();
  const named = tagged !== undefined && AGENT_NAME.test(tagged) ? tagged : undefined;
  const rest = named && tag ? todo.content.slice(tag[0].length).trim() : todo.content;
  return {
    content: rest === "" ? todo.content : rest,
    status: todo.status,
    agent: todo.agent ?? named ?? self,
  };
}

export const writeTodosTool = defineTool({
  name: "write_todos",
  domain: "plan",
  description:
    'Write or update your plan for this task as a list of steps with a status (pending, in_progress, completed). Use it for work of more than three steps; send the whole list each time, with exactly one item in progress. Tag each step you delegate with the agent that does it, "[agent] step" (e.g. "[researcher] Find three sources on X"), or give it as agent.',
  input: toolInput,
  async run({ todos }, context) {
    const steps = todos.map((t) => ownedStep(t, context.agent));
    const done = steps.filter((t) => t.status === "completed").length;
    const rendered = steps
      .map(
        (t) => `${MARK[t.status]} ${t.agent === context.agent ? "" : `[${t.agent}] `}${t.content}`,
      )
      .join("\n");
    context.emit({
      kind: "plan",
      text: `Plan: ${done} of ${steps.length} done`,
      detail: { todos: steps },
    });
    return { content: `Plan saved (${done}/${steps.length} done):\n${rendered}` };
  },
});
