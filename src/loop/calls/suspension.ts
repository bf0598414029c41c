/**
 * Tool calls that wait on something outside the loop: a person's answer (`ask_user`), a person's
 * approval (frontmatter `tools.requireApproval`), or a sub-agent's task (`task`). The loop records the
 * turn's calls and where it stopped ({@link PendingCalls}); the task object records the answer
 * when it arrives ({@link Resolution}) and runs the loop again, which finishes the calls in order.
 * Pure: no I/O.
 */
import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Part } from "../../protocol/wire.ts";
import type { ChatMessage } from "../chat-message.ts";
import type { FormSchema, Suspension } from "../contracts.ts";

/** A person's reply (text and data parts, kept whole to pass on to a sub-agent). */
export interface Reply {
  kind: "reply";
  text: string;
  data: Record<string, unknown>[];
  parts: Part[];
}

/** How a sub-agent's task ended. */
export interface ChildOutcome {
  kind: "child";
  state: string;
  text: string;
}

/** What ends (or, for a sub-agent's question, moves on) a wait. */
export type Resolution = Reply | ChildOutcome;

/** A tool call of the turn. */
export interface PendingCall {
  id: string;
  name: string;
  input: unknown;
}

/** The turn's tool calls while one of them waits. */
export interface PendingCalls {
  calls: PendingCall[];
  /** Index in `calls` of the call that waits; the ones before it have results. */
  next: number;
  results: ToolResultBlockParam[];
  waiting: Suspension;
  /** Set when the answer arrives; the next step finishes the calls. */
  resolution: Resolution | null;
  /**
   * Conversation turns of other tasks (with their context seq) that arrived while waiting;
   * appended after the results.
   */
  deferred: { message: ChatMessage; seq: number }[];
}

/** The answer carried by a person's message. */
export function replyFrom(parts: readonly Part[]): Reply {
  const text = parts
    .map((p) => p.text ?? "")
    .filter((t) => t.trim() !== "")
    .join("\n");
  const data = parts
    .map((p) => p.data)
    .filter((d): d is Record<string, unknown> => typeof d === "object" && d !== null);
  return { kind: "reply", text, data, parts: [...parts] };
}

const YES = /^\s*(y|yes|approve[ds]?|ok(ay)?|allow(ed)?|go( ahead)?|sure)\b/i;
/** Any of these anywhere makes a reply a no: when in doubt, the call does not run. */
const NO = /(^\s*n\b|\b(no|not|den(y|ied)|reject(ed)?|refuse[ds]?|don'?t|stop|cancel)\b)/i;

/** Whether a reply approves the call, and the person's words. */
export function approvalFrom(reply: Reply): { approved: boolean; reason: string } {
  for (const data of reply.data) {
    if (typeof data.approve === "boolean") {
      const reason = typeof data.reason === "string" ? data.reason : reply.text;
      return { approved: data.approve, reason };
    }
  }
  if (YES.test(reply.text) && !NO.test(reply.text)) return { approved: true, reason: reply.text };
  return { approved: false, reason: reply.text };
}

/** The form of an approval request. */
export const APPROVAL_FORM: FormSchema = {
  type: "object",
  properties: {
    approve: { type: "boolean", description: "true runs the call, false refuses it" },
    reason: { type: "string", description: "optional words for the agent" },
  },
  required: ["approve"],
};

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The parts of the input-required status message that asks the person. */
export function suspensionParts(suspension: Exclude<Suspension, { kind: "child" }>): Part[] {
  if (suspension.kind === "question") {
    return [
      { text: suspension.question },
      ...(suspension.form
        ? [
            {
              data: { kind: "form", schema: suspension.form },
              mediaType: "application/json",
            },
          ]
        : []),
    ];
  }
  const input = clip(JSON.stringify(suspension.input ?? {}), 2_000);
  return [
    {
      text: `Approve the call of ${suspension.tool} with ${input}? Reply yes or no (a reason is welcome), or send the form's values.`,
    },
    {
      data: {
        kind: "approval",
        tool: suspension.tool,
        input: suspension.input ?? {},
        schema: APPROVAL_FORM,
      },
      mediaType: "application/json",
    },
  ];
}

/** The tool result an answered question gives the model. */
export function answerContent(reply: Reply): string {
  const data = reply.data.map((d) => JSON.stringify(d)).join("\n");
  const parts = [
    reply.text ? `The user answered: ${reply.text}` : "",
    data ? `Form values: ${data}` : "",
  ].filter((p) => p !== "");
  return parts.join("\n") || "The user answered without any text.";
}
