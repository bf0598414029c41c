/**
 * `a2a chat <agent>`: a conversation in one context. Each line is a message, streamed like
 * `a2a stream`; when the agent asks (input-required), the next line answers that task, and a
 * form is filled in field by field. `/new` starts a new conversation, `/exit` or Ctrl-D leaves.
 */
import { createInterface } from "node:readline";
import { SendMessageRequest } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { type Out, questionOf } from "./render.ts";
import { streamTo } from "./stream.ts";

/** Runs the REPL until the input ends; returns the exit code. */
export async function chat(
  client: Client,
  out: Out,
  options: { contextId?: string },
): Promise<number> {
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
    `chatting${contextId ? ` in context ${contextId}` : ""}; /new for a new conversation, Ctrl-D to leave\n`,
  );
  try {
    for (;;) {
      const line = await ask(waitingTask ? "answer> " : "you> ");
      if (line === null) break;
      const text = line.trim();
      if (text === "/exit" || text === "/quit") break;
      if (text === "/new") {
        contextId = undefined;
        waitingTask = undefined;
        out.write("new conversation\n");
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
      let view = await streamTo(client, request, false);
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
          client,
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
  out.write("\n");
  return 0;
}
