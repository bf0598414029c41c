/**
 * `npm run a2a -- <command>` (or the `a2a` bin): a command-line A2A client for this harness and
 * any other A2A agent, v1.0 or v0.3, built on the official @a2a-js/sdk client.
 *
 *   card <agent|url>                 the agent's card, its signature verified (exit 1 if invalid)
 *   send <agent|url> <text...>       one message, waits for the answer
 *   stream <agent|url> <text...>     one message, shows the work live
 *   get <agent|url> <taskId>         a task: state, answer, question
 *   cancel <agent|url> <taskId>      cancels a task
 *   tasks <agent|url>                your tasks (v1.0 agents)
 *   chat <agent|url>                 a conversation; answers input-required questions inline
 *
 * Options: --url (this harness; default http://127.0.0.1:8787), --token (or A2A_TOKEN; sent only
 * to the origin of --url or of the agent URL), --json (machine output), --context <id>,
 * --task <id> (continue a task), --history <n>, --state <state>, --limit <n>,
 * --require-signature (refuse a card that is not signed). A card seen signed before is verified
 * by every command and refused unsigned.
 */
import { parseArgs } from "node:util";
import { Task as SdkTask } from "@a2a-js/sdk";
import { chat } from "./chat.ts";
import { CliError, explain } from "./errors.ts";
import { costLine, type Out, stateName, TaskView, textOf } from "./render.ts";
import { Spinner } from "./spinner.ts";
import { type Session, stdout, streamTo, taskJson, textRequest } from "./stream.ts";
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

const USAGE = `usage: a2a <command> [options]

  card <agent|url>               show an agent's card and check its signature
  send <agent|url> <text...>     send a message and wait for the answer
  stream <agent|url> <text...>   send a message and watch the work live
  get <agent|url> <taskId>       show a task
  cancel <agent|url> <taskId>    cancel a task
  tasks <agent|url>              list your tasks (--context, --state, --limit)
  chat <agent|url>               talk in one conversation (Ctrl-D to leave)

  <agent> is an agent of this harness (assistant, writer...) or any agent's URL.
  Exit codes: 0 completed, 3 input-required, 4 canceled, 5 rejected (the agent
  declined; the reason is printed), 1 failed or an error.

options:
  --url <url>       the harness (default ${DEFAULT_URL}, or $A2A_URL)
  --token <token>   bearer token (default: $A2A_TOKEN), sent only to the origin of
                    --url or of the agent URL given
  --require-signature  refuse an agent whose card is not signed (a card seen signed
                    before is always refused unsigned)
  --json            print JSON (one object, or one event per line for stream)
  --context <id>    continue a conversation
  --task <id>       answer a task that waits for input
  --history <n>     messages of history to show with get
`;

/** The command line, or the usage after what is wrong with it (exit 2). */
function parseCommandLine() {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (error) {
    process.stderr.write(`a2a: ${error instanceof Error ? error.message : error}\n\n${USAGE}`);
    process.exit(2);
  }
}

const OPTIONS = {
  url: { type: "string", default: process.env.A2A_URL ?? DEFAULT_URL },
  token: { type: "string", default: process.env.A2A_TOKEN },
  json: { type: "boolean", default: false },
  context: { type: "string" },
  task: { type: "string" },
  history: { type: "string" },
  state: { type: "string" },
  limit: { type: "string" },
  "require-signature": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;
const { values, positionals } = parseCommandLine();

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

/** A whole-number option, or a CliError naming it. */
function count(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`--${name} needs a whole number, not "${value}"`);
  return n;
}

/** The command that answers a task waiting for input, as the user would type it. */
const answerCommand = (target: Target, taskId: string) =>
  `npm run a2a -- send ${agentArgs(target)} --task ${taskId} "<your answer>"`;

let target: Target | undefined;
let http: Http | undefined;

async function main(): Promise<number> {
  const [command, agent, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  if (!["card", "send", "stream", "get", "cancel", "tasks", "chat"].includes(command))
    throw new CliError(`unknown command ${command}\n\n${USAGE}`);
  if (!agent) throw new CliError(`${command} needs an agent name or URL\n\n${USAGE}`);
  target = resolveTarget(agent, values.url);
  http = new Http(values.token || undefined, new URL(target.url).origin);
  const fetched = await fetchCard(target, http);
  const cardUrl = new URL(".well-known/agent-card.json", target.url).toString();
  const required = values["require-signature"];
  if (command === "card") {
    const signature = await verifyFetchedCard(fetched, cardUrl, http.fetch);
    const card = cardJson(fetched);
    if (values.json) printJson(card);
    else printCard(card);
    (values.json ? process.stderr : process.stdout).write(`${describeVerification(signature)}\n`);
    const verdict = signatureVerdict(signature, cardUrl, required);
    if (verdict && signature.status !== "invalid") process.stderr.write(`a2a: ${verdict}\n`);
    return verdict ? 1 : 0;
  }
  await checkBeforeUse(fetched, cardUrl, http.fetch, required);
  const warning = tokenWarning(fetched, http, target.agent);
  if (warning) process.stderr.write(`a2a: ${warning}\n`);
  const session: Session = { ...(await clientFor(http, fetched)), http, target };
  const hint = (view: TaskView) => {
    if (view.state === "input-required" && target)
      process.stderr.write(`answer with: ${answerCommand(target, view.taskId)}\n`);
    // The task's tokens and estimated cost once it has ended (on stderr: the answer is stdout).
    if (view.cost && ENDED.has(view.state)) process.stderr.write(`${costLine(view.cost)}\n`);
  };
  switch (command) {
    case "send":
    case "stream": {
      const text = rest.join(" ");
      if (!text) throw new CliError(`${command} needs the message text`);
      const request = textRequest(text, {
        ...(values.context ? { contextId: values.context } : {}),
        ...(values.task ? { taskId: values.task } : {}),
        blocking: true,
      });
      if (command === "stream") {
        const view = await streamTo(session, request, values.json);
        if (!values.json) hint(view);
        return exitCodeFor(view.state);
      }
      const spinner = new Spinner(() => !values.json);
      spinner.resume("working");
      const result = await session.client.sendMessage(request).finally(() => spinner.stop());
      const task = taskJson(result);
      if (values.json) printJson(task);
      if (task.message) {
        // The agent answered with a message, not a task.
        if (!values.json) out.write(`${textOf(task.message as { parts?: [] })}\n`);
        return 0;
      }
      const view = new TaskView(values.json ? { write: () => {}, color: false } : out);
      view.task(task);
      if (!values.json) {
        view.end();
        hint(view);
      }
      return exitCodeFor(view.state);
    }
    case "get": {
      const id = rest[0];
      if (!id) throw new CliError("get needs a task id (npm run a2a -- tasks <agent> lists yours)");
      const history =
        values.history === undefined ? {} : { historyLength: count("history", values.history, 0) };
      const task = SdkTask.toJSON(
        await session.client.getTask({ tenant: "", id, ...history }),
      ) as Json;
      if (values.json) printJson(task);
      else {
        const view = new TaskView(out);
        const state = stateName((task.status as { state?: string } | undefined)?.state);
        out.write(`task ${task.id} · context ${task.contextId} · ${state}\n`);
        for (const message of (task.history ?? []) as Array<{ role?: string; parts?: [] }>)
          out.write(
            `  ${message.role === "ROLE_USER" ? "you" : "agent"}: ${(message.parts ?? [])
              .map((p: { text?: string }) => p.text ?? "")
              .join("")
              .slice(0, 200)}\n`,
          );
        view.task(task);
        view.end();
        hint(view);
      }
      return 0;
    }
    case "cancel": {
      const id = rest[0];
      if (!id) throw new CliError("cancel needs a task id");
      const task = SdkTask.toJSON(
        await session.client.cancelTask({ tenant: "", id, metadata: undefined }),
      ) as Json;
      if (values.json) printJson(task);
      else out.write(`task ${id}: ${(task.status as { state?: string }).state}\n`);
      return 0;
    }
    case "tasks":
      await listTasks(
        session,
        {
          ...(values.context ? { contextId: values.context } : {}),
          ...(values.state ? { state: values.state } : {}),
          limit: Math.min(100, Math.max(1, count("limit", values.limit, 20))),
          signedIn: Boolean(values.token),
        },
        out,
        values.json,
      );
      return 0;
    default:
      return chat(session, out, { ...(values.context ? { contextId: values.context } : {}) });
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
    const [command, , id] = positionals;
    const taskId = command === "get" || command === "cancel" ? id : values.task;
    const message =
      target && http
        ? explain(error, errorContext(target, http, taskId))
        : explain(error, { url: values.url, agent: positionals[1] ?? "", harness: true });
    process.stderr.write(`a2a: ${message}\n`);
    process.exit(1);
  },
);
