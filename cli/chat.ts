/**
 * `a2a chat <agent>`: a conversation in one context. Each line is a message, streamed like
 * `a2a stream` (a dropped stream is resumed); when the agent asks (input-required) or needs the
 * user's authorization (auth-required, e.g. a remote agent's sign-in link), the next line
 * answers that task, and a form is filled in field by field. `/new` starts a new conversation
 * and says how to come back to the one left, `/exit` or Ctrl-D leaves (saying the same). With an
 * agent of this harness, its agent changes are followed live (agent-events.ts): a line says what
 * changed (before the next prompt, or at once while waiting at one), and `/agents` lists them.
 * In a terminal (or with `--steer`), a line typed while a task works is sent to it as a live
 * message and reaches the model at its next step (steer.ts).
 */
import { createInterface } from "node:readline";
import { SendMessageRequest } from "@a2a-js/sdk";
import { describeChange, type Roster, rosterLines, watchAgents } from "./agent-events.ts";
import { answerField } from "./form.ts";
import { type Out, questionOf, type TaskView } from "./render.ts";
import { LineReader, sendLive, steerWhile } from "./steer.ts";
import { type Session, streamTo } from "./stream.ts";
import { agentArgs } from "./target.ts";

/** Runs the REPL until the input ends; returns the exit code. */
export async function chat(
  session: Session,
  out: Out,
  options: { contextId?: string; steer?: boolean },
): Promise<number> {
  const answerHint = (taskId: string) =>
    `npm run a2a -- send ${agentArgs(session.target)} --task ${taskId} "<your answer>"`;
  const resume = (contextId: string) =>
    `npm run a2a -- chat ${agentArgs(session.target)} --context ${contextId}`;
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = new LineReader(rl[Symbol.asyncIterator]());
  // In a terminal (or with --steer), a line typed while a task works goes to it (steer.ts).
  const steer = options.steer === true || interactive;
  // The harness's agents, followed live; changes are told at a prompt, never mid-answer.
  let roster = null as Roster | null;
  let prompting: string | null = null;
  const notices: string[] = [];
  const notify = (line: string) => {
    if (prompting === null) notices.push(line);
    else out.write(`\n· ${line}\n${prompting}`);
  };
  const harness = session.target.harness;
  const watch = harness
    ? watchAgents(session.http, harness, (next) => {
        const change = roster ? describeChange(roster, next) : null;
        roster = next;
        if (change) notify(change);
      })
    : null;
  /** The next line, after a prompt; null when the input ends. Piped input is echoed. */
  const ask = async (prompt: string): Promise<string | null> => {
    for (const line of notices.splice(0)) out.write(`· ${line}\n`);
    out.write(prompt);
    prompting = prompt;
    const next = await lines.take();
    prompting = null;
    if (next.done) return null;
    if (!interactive) out.write(`${next.value}\n`);
    return next.value;
  };
  /** Streams a message's task; meanwhile (when steering) lines typed go to it live. */
  const streaming = (request: SendMessageRequest): Promise<TaskView> => {
    let shown: TaskView | null = null;
    const work = streamTo(session, { request }, "live", (view) => {
      shown = view;
    });
    if (!steer) return work;
    return steerWhile(work, {
      lines,
      task: () => (shown ? { taskId: shown.taskId, contextId: shown.contextId } : null),
      send: (target, text) => sendLive(session, target, text),
      note: (text) => out.write(`\n· ${text}\n`),
    });
  };
  const help = "/new starts a new conversation, /agents lists the agents, /exit leaves";
  let contextId = options.contextId;
  let waitingTask: string | undefined;
  out.write(
    `chatting with ${session.target.agent}${contextId ? ` in context ${contextId}` : ""}; /new starts a new conversation, /agents lists the agents, /exit or Ctrl-D leaves\n`,
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
      if (text === "/agents") {
        const chatted = session.target.agent;
        out.write(
          roster
            ? rosterLines(
                roster,
                chatted === "." || chatted === "default" ? roster.defaultAgent : chatted,
              )
            : harness
              ? "the agent list has not arrived yet: try again in a moment\n"
              : "/agents lists the agents of this harness; this agent was named by its URL\n",
        );
        continue;
      }
      if (/^\/[a-z]+$/.test(text)) {
        out.write(`${text === "/help" ? "" : `unknown command ${text}: `}${help}\n`);
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
      let view = await streaming(request);
      contextId = view.contextId || contextId;
      waitingTask = undefined;
      // A form is answered field by field, then sent as one data part.
      // auth-required (the agent, or a remote agent it called, needs the user's authorization)
      // is answered like a question: the next line goes back on the same task.
      while (view.state === "input-required" || view.state === "auth-required") {
        const question = questionOf(view.lastMessage);
        if (question.fields.length === 0) {
          waitingTask = view.taskId;
          break;
        }
        const values: Record<string, unknown> = {};
        for (const field of question.fields) {
          const hintText = field.options ? ` (${field.options.join("|")})` : "";
          const prompt = `  ${field.name}${hintText}${field.required ? "" : " [optional]"}: `;
          // An answer the server would refuse is asked again, with why; the task waits meanwhile.
          for (;;) {
            const raw = await ask(prompt);
            if (raw === null) {
              out.write(
                `\ntask ${view.taskId} still waits for input: ${answerHint(view.taskId)}\n`,
              );
              return 3;
            }
            const answer = answerField(field, raw);
            if ("problem" in answer) {
              out.write(`  ${answer.problem}; try again\n`);
              continue;
            }
            if ("value" in answer) values[field.name] = answer.value;
            break;
          }
        }
        view = await streaming(
          SendMessageRequest.fromJSON({
            message: {
              messageId: crypto.randomUUID(),
              role: "ROLE_USER",
              taskId: view.taskId,
              contextId,
              parts: [{ data: values, mediaType: "application/json" }],
            },
          }),
        );
      }
    }
  } finally {
    rl.close();
    watch?.stop();
  }
  out.write(contextId ? `\ncontinue this conversation with: ${resume(contextId)}\n` : "\n");
  return 0;
}
