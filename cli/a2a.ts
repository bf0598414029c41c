/**
 * `npm run a2a -- <command>` (or the `a2a` bin): a command-line A2A client for this harness and
 * any other A2A agent, v1.0 or v0.3, built on the official @a2a-js/sdk client.
 *
 *   card <agent|url>                 the agent's card, its signature verified (exit 1 if invalid)
 *   send <agent|url> <text...>       one message, waits for the answer (streamed underneath when
 *                                    the agent streams: ids at once on stderr, a cut resumed)
 *   stream <agent|url> <text...>     one message, shows the work live (--task <id>: follow it,
 *                                    or show it as it ended)
 *   get <agent|url> <taskId>         a task: state, history, answer, question
 *   cancel <agent|url> <taskId>      cancels a task
 *   tasks <agent|url>                your tasks (v1.0 agents)
 *   chat <agent|url>                 a conversation; answers input-required questions inline
 *   prompt <taskId>                  what the model saw: the task's newest model request
 *
 * The options and the usage: command-line.ts (a wrong command line exits 2). Ctrl-C while a
 * task runs says how to follow or cancel it (exit 130). A card seen signed before is verified by
 * every command and refused unsigned.
 */
import { Task as SdkTask } from "@a2a-js/sdk";
import { chat } from "./chat.ts";
import { type CommandLine, parseCommandLine, usage } from "./command-line.ts";
import { explain, oneLine, UsageError } from "./errors.ts";
import { filePart, filesCommand, readStdin } from "./files.ts";
import { promptCommand } from "./prompt.ts";
import { costLine, type Out, stateName, TaskView, textOf } from "./render.ts";
import { Spinner } from "./spinner.ts";
import {
  followTask,
  type Session,
  stdout,
  streaming,
  streamTo,
  taskJson,
  textRequest,
} from "./stream.ts";
import {
  agentArgs,
  cardJson,
  clientFor,
  DEFAULT_URL,
  errorContext,
  fetchCard,
  Http,
  resolveTarget,
  type Target,
  tokenWarning,
} from "./target.ts";
import { listTasks } from "./tasks.ts";
import {
  checkBeforeUse,
  describeVerification,
  signatureVerdict,
  verifyFetchedCard,
} from "./verify-card.ts";

type Json = Record<string, unknown>;

const USAGE = usage(DEFAULT_URL);
const args = process.argv.slice(2);

/** The command line, or exit 2 with what is wrong with it and the usage. */
function commandLine(): CommandLine {
  try {
    return parseCommandLine(
      args,
      { url: process.env.A2A_URL || DEFAULT_URL, token: process.env.A2A_TOKEN },
      { piped: process.stdin.isTTY !== true },
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`a2a: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
}
const line = commandLine();

const out: Out = stdout;
const ENDED = new Set(["completed", "failed", "canceled", "rejected"]);
const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/**
 * The exit code for a task's state: 0 completed, 3 waiting for input, 4 canceled, 5 rejected
 * (the agent declined; its reason is printed), 1 failed (and any error).
 */
function exitCodeFor(state: string): number {
  if (state === "completed") return 0;
  if (state === "input-required" || state === "auth-required") return 3;
  if (state === "rejected") return 5;
  return state === "canceled" ? 4 : 1;
}

/** The command that answers a task waiting for input, as the user would type it. */
const answerCommand = (target: Target, taskId: string) =>
  `npm run a2a -- send ${agentArgs(target)} --task ${taskId} "<your answer>"`;

let target: Target | undefined;
let http: Http | undefined;

/** Ctrl-C while a message is out: the task runs on at the agent; say how to follow or cancel it. */
function interrupted(): void {
  const name = target ? agentArgs(target) : line.agent;
  const { taskId, contextId } = streaming;
  process.stderr.write(
    taskId
      ? `\na2a: interrupted; task ${taskId} runs on at the agent: follow it with npm run a2a -- stream ${name} --task ${taskId}, cancel it with npm run a2a -- cancel ${name} ${taskId}\n`
      : `\na2a: interrupted before the task's id arrived; the message may have started a task, which runs on: npm run a2a -- tasks ${name}${contextId ? ` --context ${contextId}` : ""} finds it\n`,
  );
  process.exit(130);
}

/** The message text from standard input (`send -`, or a pipe); exit 2 when there is none. */
async function stdinText(): Promise<string> {
  const text = new TextDecoder().decode(await readStdin());
  if (text.trim() === "" && line.attach.length === 0)
    throw new UsageError(`${line.command} needs the message text (standard input was empty)`);
  return text;
}

/** The history lines of `get`: one per message, the answer (printed after them) left out. */
function historyLines(task: Json, answer: string): string[] {
  const history = (task.history ?? []) as Array<{ role?: string; parts?: [] }>;
  return history.flatMap((message) => {
    const text = textOf(message);
    if (message.role !== "ROLE_USER" && text.trim() === answer.trim()) return [];
    const who = message.role === "ROLE_USER" ? "you" : "agent";
    const flat = oneLine(text);
    const cut = flat.length > 200 ? `${flat.slice(0, 200).replace(/\s+\S*$/, "")} …` : flat;
    return [`  ${who}: ${cut}`];
  });
}

async function main(): Promise<number> {
  const { command, agent, rest } = line;
  if (command === null) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === "prompt")
    return promptCommand(line, new Http(line.token, new URL(line.url).origin), out);
  target = resolveTarget(agent, line.url);
  // Standard input first: an empty one is a wrong command line, whether or not a server answers.
  const text = line.stdin ? await stdinText() : rest.join(" ");
  http = new Http(line.token, new URL(target.url).origin);
  if (command === "files") return filesCommand(line, target, http, out);
  const fetched = await fetchCard(target, http);
  const cardUrl = new URL(".well-known/agent-card.json", target.url).toString();
  const required = line.requireSignature;
  if (command === "card") {
    const signature = await verifyFetchedCard(fetched, cardUrl, http.fetch);
    const card = cardJson(fetched);
    if (line.json) printJson(card);
    else printCard(card);
    (line.json ? process.stderr : process.stdout).write(`${describeVerification(signature)}\n`);
    const verdict = signatureVerdict(signature, cardUrl, required);
    if (verdict && signature.status !== "invalid") process.stderr.write(`a2a: ${verdict}\n`);
    return verdict ? 1 : 0;
  }
  await checkBeforeUse(fetched, cardUrl, http.fetch, required);
  const warning = tokenWarning(fetched, http, target.agent);
  if (warning) process.stderr.write(`a2a: ${warning}\n`);
  const session: Session = { ...(await clientFor(http, fetched)), http, target };
  const hint = (view: TaskView) => {
    if ((view.state === "input-required" || view.state === "auth-required") && target)
      process.stderr.write(`answer with: ${answerCommand(target, view.taskId)}\n`);
  };
  // The end of send and stream: the task's tokens and estimated cost once it has ended (stderr).
  const ending = (view: TaskView) => {
    hint(view);
    if (view.cost && ENDED.has(view.state)) process.stderr.write(`${costLine(view.cost)}\n`);
  };
  switch (command) {
    case "send":
    case "stream": {
      if (command === "stream" && !text && line.task) {
        // No text: follow the task (after Ctrl-C or a lost connection).
        process.on("SIGINT", interrupted);
        const view = await followTask(session, line.task, line.json ? "json" : "live");
        if (!line.json) ending(view);
        return exitCodeFor(view.state);
      }
      // A conversation named up front, so that a cut before the task's id says where to find it.
      const contextId =
        line.context ?? (target.harness && !line.task ? crypto.randomUUID() : undefined);
      const request = textRequest(text, {
        ...(contextId ? { contextId } : {}),
        ...(line.task ? { taskId: line.task } : {}),
        blocking: true,
        files: await Promise.all(line.attach.map(filePart)),
      });
      const streams = (fetched.capabilities as { streaming?: unknown } | undefined)?.streaming;
      if (command === "stream" || (streams === true && !line.json)) {
        process.on("SIGINT", interrupted);
        const output = command === "send" ? "quiet" : line.json ? "json" : "live";
        const view = await streamTo(session, { request }, output, (v) => {
          if (output === "quiet")
            process.stderr.write(`task ${v.taskId} · context ${v.contextId}\n`);
        });
        if (output === "quiet") view.summary(out);
        if (!line.json) ending(view);
        return view.taskId ? exitCodeFor(view.state) : 0;
      }
      const spinner = new Spinner(() => !line.json);
      spinner.resume("working");
      const result = await session.client.sendMessage(request).finally(() => spinner.stop());
      const task = taskJson(result);
      if (line.json) printJson(task);
      if (task.message) {
        // The agent answered with a message, not a task.
        if (!line.json) out.write(`${textOf(task.message as { parts?: [] })}\n`);
        return 0;
      }
      const view = new TaskView(line.json ? { write: () => {}, color: false } : out);
      view.task(task);
      if (!line.json) {
        process.stderr.write(`task ${view.taskId} · context ${view.contextId}\n`);
        view.end();
        ending(view);
      }
      return exitCodeFor(view.state);
    }
    case "get": {
      const id = rest[0] as string;
      const history = line.history === undefined ? {} : { historyLength: line.history };
      const task = SdkTask.toJSON(
        await session.client.getTask({ tenant: "", id, ...history }),
      ) as Json;
      if (line.json) printJson(task);
      else {
        const view = new TaskView({ write: () => {}, color: false });
        view.task(task);
        const state = stateName((task.status as { state?: string } | undefined)?.state);
        out.write(`task ${task.id} · context ${task.contextId} · ${state}\n`);
        for (const text of historyLines(task, view.answer)) out.write(`${text}\n`);
        view.summary(out);
        hint(view);
      }
      return 0;
    }
    case "cancel": {
      const id = rest[0] as string;
      const task = SdkTask.toJSON(
        await session.client.cancelTask({ tenant: "", id, metadata: undefined }),
      ) as Json;
      if (line.json) printJson(task);
      else out.write(`task ${id}: ${stateName((task.status as { state?: string }).state)}\n`);
      return 0;
    }
    case "tasks":
      await listTasks(
        session,
        {
          ...(line.context ? { contextId: line.context } : {}),
          ...(line.state ? { state: line.state } : {}),
          limit: line.limit,
          signedIn: Boolean(line.token),
        },
        out,
        line.json,
      );
      return 0;
    default:
      return chat(session, out, {
        ...(line.context ? { contextId: line.context } : {}),
        steer: line.steer,
      });
  }
}

function printCard(card: Json): void {
  const lines = [
    `${card.name} ${card.version ? `v${card.version}` : ""}`.trim(),
    `${card.description ?? ""}`,
  ];
  const interfaces = (card.supportedInterfaces ?? card.additionalInterfaces ?? []) as Json[];
  if (interfaces.length > 0) {
    lines.push("", "interfaces:");
    for (const i of interfaces)
      lines.push(
        `  ${i.protocolBinding ?? i.transport} ${i.protocolVersion ?? card.protocolVersion ?? ""} ${i.url}`,
      );
  } else if (card.url)
    lines.push(
      "",
      `url: ${card.url} (${card.preferredTransport ?? "JSONRPC"} ${card.protocolVersion})`,
    );
  const caps = (card.capabilities ?? {}) as Json;
  lines.push(
    "",
    `capabilities: ${
      Object.entries(caps)
        .filter(([, v]) => v === true)
        .map(([k]) => k)
        .join(", ") || "none"
    }`,
  );
  const skills = (card.skills ?? []) as Json[];
  if (skills.length > 0) {
    lines.push("", "skills:");
    for (const s of skills) lines.push(`  - ${s.name}: ${s.description ?? ""}`);
  }
  if (card.securitySchemes)
    lines.push("", `auth: ${Object.keys(card.securitySchemes as Json).join(", ")}`);
  out.write(`${lines.join("\n")}\n`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`a2a: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    const taskId = line.command === "get" || line.command === "cancel" ? line.rest[0] : line.task;
    const message =
      target && http
        ? explain(error, errorContext(target, http, taskId))
        : explain(error, { url: line.url, agent: line.agent, harness: true });
    process.stderr.write(`a2a: ${message}\n`);
    process.exit(1);
  },
);
