/**
 * The CLI's command line: its usage text, its options, and what is wrong with a command line in
 * one line (a {@link UsageError}: the caller prints it with the usage and exits 2), never Node's
 * own parser text. Pure: reads no environment beyond the defaults it is given.
 */

import { parseArgs } from "node:util";
import type { StateWord } from "../src/protocol/task-states.ts";
import { UsageError } from "./errors.ts";
import { parserProblem } from "./parser-problem.ts";

/** The commands, in the usage's order. */
export const COMMANDS = [
  "card",
  "send",
  "stream",
  "get",
  "cancel",
  "tasks",
  "chat",
  "files",
  "prompt",
] as const;

/** What `files` does: list, download, upload, remove. */
export const FILE_COMMANDS = ["ls", "get", "put", "rm"] as const;

/** The states `tasks --state` takes, as words (src/protocol/task-states.ts), in a task's order. */
export const STATES = [
  "submitted",
  "working",
  "input-required",
  "auth-required",
  "completed",
  "failed",
  "canceled",
  "rejected",
] as const satisfies readonly StateWord[];

/** The usage, for `help`, `--help`, no arguments and any wrong command line. */
export const usage = (defaultUrl: string) => `usage: a2a <command> <agent|url> [options]

  card <agent|url>               show an agent's card and check its signature
  send <agent|url> <text...>     send a message and wait for the answer (text "-",
                                 or none with a pipe: read from standard input)
  stream <agent|url> <text...>   send a message and watch the work live
  stream <agent|url> --task <id> follow a running task (after Ctrl-C or a lost connection)
  get <agent|url> <taskId>       show a task (--history <n>: its last n messages)
  cancel <agent|url> <taskId>    cancel a task
  tasks <agent|url>              list your tasks, newest first (--context, --state, --limit)
  chat <agent|url>               talk in one conversation (Ctrl-D to leave)
  files ls <agent> [prefix]      your files in the agent's workspace
  files get <agent> <path> [to]  download one (to a file, else to standard output)
  files put <agent> <file> [path]  upload one ("-": standard input; path: default its name)
  files rm <agent> <path>        delete one
  prompt <taskId>                what the model saw: the task's newest model request
                                 (system prompt, tools, messages; --json: the last few,
                                 each exactly as sent; yours only, or any as an admin)
  help                           this text

  <agent> is an agent of this harness (assistant, writer...) or any agent's URL.
  Exit codes: 0 completed, 3 input-required, 4 canceled, 5 rejected (the agent
  declined; the reason is printed), 1 failed or an error, 2 a wrong command line,
  130 interrupted (Ctrl-C; the task runs on at the agent).

options:
  --url <url>       the harness (default ${defaultUrl}, or $A2A_URL)
  --token <token>   bearer token (default: $A2A_TOKEN), sent only to the origin of
                    --url or of the agent URL given
  --require-signature  refuse an agent whose card is not signed (a card seen signed
                    before is always refused unsigned)
  --json            print JSON (one object, or one event per line for stream)
  --context <id>    continue a conversation (tasks: only its tasks; files: an
                    anonymous caller's workspace is its conversation's)
  --file <path>     send, stream: send a file with the message (again for more)
  --task <id>       answer a task that waits for input (stream: follow it)
  --steer           chat: a line typed while a task works goes to it as a live
                    message (on by default in a terminal; this is for a pipe)
  --history <n>     get: show the last n messages of the task's history
  --state <state>   tasks: only tasks in this state: ${STATES.join(", ")}
  --limit <n>       tasks: at most n tasks, 1 to 100 (default 20)
  -h, --help        this text
`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean", default: false },
  context: { type: "string" },
  task: { type: "string" },
  history: { type: "string" },
  state: { type: "string" },
  limit: { type: "string" },
  "require-signature": { type: "boolean", default: false },
  steer: { type: "boolean", default: false },
  file: { type: "string", multiple: true },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** A parsed command line. */
export interface CommandLine {
  /** null: print the usage (help, --help, no arguments). */
  command: (typeof COMMANDS)[number] | null;
  /** What `files` does. */
  files?: (typeof FILE_COMMANDS)[number];
  agent: string;
  /** The positionals after the agent (the text, or the task id). */
  rest: string[];
  url: string;
  token: string | undefined;
  json: boolean;
  context?: string;
  task?: string;
  history?: number;
  state?: (typeof STATES)[number];
  limit: number;
  requireSignature: boolean;
  /** chat: lines typed while a task works go to it (`--steer`; a terminal steers anyway). */
  steer: boolean;
  /** Files to send with the message (`--file`, in order). */
  attach: string[];
  /** The message text is to be read from standard input (`-`, or no text and a pipe). */
  stdin: boolean;
}

/** A whole number from `min` to `max`, or a UsageError naming the option. */
function wholeNumber(name: string, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} needs a whole number from ${min} to ${max}, not "${value}"`);
  return n;
}

/** Parses `args`; throws a UsageError for anything wrong with them. */
export function parseCommandLine(
  args: string[],
  defaults: { url: string; token: string | undefined },
  options: { piped: boolean } = { piped: false },
): CommandLine {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>
  >;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(parserProblem(error));
  }
  const { values, positionals } = parsed;
  const [command, ...others] = positionals;
  const sub = command === "files" ? others.shift() : undefined;
  const [agent = "", ...rest] = others;
  const line: CommandLine = {
    command: null,
    agent,
    rest,
    url: values.url || defaults.url,
    token: values.token || defaults.token || undefined,
    json: values.json,
    ...(values.context !== undefined ? { context: values.context } : {}),
    ...(values.task !== undefined ? { task: values.task } : {}),
    limit: values.limit === undefined ? 20 : wholeNumber("limit", values.limit, 1, 100),
    requireSignature: values["require-signature"],
    steer: values.steer,
    attach: values.file ?? [],
    stdin: false,
  };
  if (values.help || command === undefined || command === "help") return line;
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new UsageError(`unknown command "${command}"`);
  line.command = command as CommandLine["command"];
  if (command === "files") return filesLine(line, sub);
  if (command === "prompt") {
    if (!agent)
      throw new UsageError("prompt needs a task id (npm run a2a -- tasks <agent> lists yours)");
    return line;
  }
  if (!agent) throw new UsageError(`${command} needs an agent name or URL`);
  if (values.history !== undefined) line.history = wholeNumber("history", values.history, 0, 1000);
  if (values.state !== undefined) {
    if (!(STATES as readonly string[]).includes(values.state))
      throw new UsageError(`--state takes one of ${STATES.join(", ")}, not "${values.state}"`);
    line.state = values.state as CommandLine["state"];
  }
  const text = rest.join(" ");
  const sends = command === "send" || command === "stream";
  if (line.attach.length > 0 && !sends)
    throw new UsageError(`--file goes with send or stream, not ${command}`);
  const following = command === "stream" && line.task !== undefined && !text;
  // "-", or no text, no file and a pipe (not a terminal): the text comes from standard input.
  line.stdin =
    sends && (text === "-" || (!text && !following && line.attach.length === 0 && options.piped));
  if (sends && !text && !line.stdin && !following && line.attach.length === 0)
    throw new UsageError(`${command} needs the message text`);
  if ((command === "get" || command === "cancel") && !rest[0])
    throw new UsageError(`${command} needs a task id (npm run a2a -- tasks ${agent} lists yours)`);
  return line;
}

/** The rest of a `files` command line: what it does, the agent, and what each needs. */
function filesLine(line: CommandLine, sub: string | undefined): CommandLine {
  if (sub === undefined || !(FILE_COMMANDS as readonly string[]).includes(sub))
    throw new UsageError(
      `files takes one of ${FILE_COMMANDS.join(", ")}${sub ? `, not "${sub}"` : ""}`,
    );
  line.files = sub as CommandLine["files"];
  if (!line.agent) throw new UsageError(`files ${sub} needs an agent name`);
  if ((sub === "get" || sub === "rm") && !line.rest[0])
    throw new UsageError(`files ${sub} needs the file's path (files ls ${line.agent} lists them)`);
  if (sub === "put" && !line.rest[0])
    throw new UsageError(`files put needs the file to upload ("-": standard input)`);
  return line;
}
