/**
 * `a2a chat <agent>`: a conversation in one context. Each line is a message, streamed like
 * `a2a stream` (a dropped stream is resumed); when the agent asks (input-required), the next line
 * answers that task, and a form is filled in field by field. `/new` starts a new conversation
 * and says how to come back to the one left, `/exit` or Ctrl-D leaves (saying the same).
 */
import { createInterface } from "node:readline";
import { SendMessageRequest } from "@a2a-js/sdk";
import { type Out, questionOf } from "./render.ts";
import { type Session, streamTo } from "./stream.ts";
import { agentArgs } from "./target.ts";

/** Runs the REPL until the input ends; returns the exit code. */
export async function chat(
  session: Session,
  out: Out,
  options: { contextId?: string },
): Promise<number> {
  const resume = (contextId: string) =>
    `npm run a2a -- chat ${agentArgs(session.target)} --context ${contextId}`;
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  /** The next line, after a prompt; null when the input ends. Piped input is echoed. */
  const ask = async (prompt: string): Promise<string | null> => {
    out.write(prompt);
    const next = await lines.next();
    if (next.done) return null;
    if (!interactive) out.write(`${next.value}\n`);
    return next.value;
  };
  let contextId = options.contextId;
  let waitingTask: string | undefined;
  out.write(
    `chatting with ${session.target.agent}${contextId ? ` in context ${contextId}` : ""}; /new starts a new conversation, /exit or Ctrl-D leaves\n`,
  );
  try {
    for (;;) {
      const line = await ask(waitingTask ? "answer> " : "you> ");
      if (line === null) break;
      const text = line.trim();
      if (text === "/exit" || text === "/quit") break;
      if (text === "/new") {
        out.write(
          contextId
            ? `new conversation; the last one (context ${contextId}) goes on with: ${resume(contextId)}\n`
            : "new conversation (nothing was said in this one yet)\n",
        );
        contextId = undefined;
        waitingTask = undefined;
        continue;
      }
      if (/^\/[a-z]+$/.test(text)) {
        out.write(
          `${text === "/help" ? "" : `unknown command ${text}: `}/new starts a new conversation, /exit leaves\n`,
        );
        continue;
      }
      if (text === "") continue;
      const request = SendMessageRequest.fromJSON({
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ text }],
          ...(contextId ? { contextId } : {}),
          ...(waitingTask ? { taskId: waitingTask } : {}),
        },
      });
      let view = await streamTo(session, request, false);
      contextId = view.contextId || contextId;
      waitingTask = undefined;
      // A form is answered field by field, then sent as one data part.
      while (view.state === "input-required") {
        const question = questionOf(view.lastMessage);
        if (question.fields.length === 0) {
          waitingTask = view.taskId;
          break;
        }
        const values: Record<string, unknown> = {};
        for (const field of question.fields) {
          const hintText = field.options ? ` (${field.options.join("|")})` : "";
          const raw = await ask(
            `  ${field.name}${hintText}${field.required ? "" : " [optional]"}: `,
          );
          if (raw === null) return 0;
          const answer = raw.trim();
          if (answer === "" && !field.required) continue;
          values[field.name] =
            field.type === "number" || field.type === "integer"
              ? Number(answer)
              : field.type === "boolean"
                ? /^(y|yes|true|1)$/i.test(answer)
                : answer;
        }
        view = await streamTo(
          session,
          SendMessageRequest.fromJSON({
            message: {
              messageId: crypto.randomUUID(),
              role: "ROLE_USER",
              taskId: view.taskId,
              contextId,
              parts: [{ data: values, mediaType: "application/json" }],
            },
          }),
          false,
        );
      }
    }
  } finally {
    rl.close();
  }
  out.write(contextId ? `\ncontinue this conversation with: ${resume(contextId)}\n` : "\n");
  return 0;
}
