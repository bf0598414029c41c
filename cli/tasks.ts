/**
 * `a2a tasks <agent>`: the caller's tasks (ListTasks, v1.0 agents), newest first, each with its
 * state, time and context and a one-line preview of what was asked and what came back. An empty
 * list says why it may be empty (anonymous callers see tasks per conversation).
 */

import { ListTasksRequest, Task as SdkTask } from "@a2a-js/sdk";
import { stateOfWord } from "../src/protocol/task-states.ts";
import { CliError } from "./errors.ts";
import { type Out, stateName, textOf } from "./render.ts";
import type { Session } from "./stream.ts";

type Json = Record<string, unknown>;
type Message = { role?: string; parts?: Array<{ text?: string }> };

/** Filters of the listing. */
export interface TaskFilters {
  contextId?: string;
  state?: string;
  limit: number;
  /** Whether the caller sends a token (an anonymous caller sees tasks per conversation). */
  signedIn: boolean;
}

/** `text` on one line, at most `width` characters. */
function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** What was asked (the first user message kept) and what came back (the answer, else the last agent message). */
export function preview(task: Json, width: number): string {
  const history = (task.history ?? []) as Message[];
  const asked = textOf(history.find((m) => m.role === "ROLE_USER"));
  const artifacts = (task.artifacts ?? []) as Array<Json & Message>;
  const answer =
    textOf(artifacts.find((a) => a.artifactId === "answer") ?? artifacts.at(-1)) ||
    textOf(history.findLast((m) => m.role === "ROLE_AGENT")) ||
    textOf((task.status as { message?: Message } | undefined)?.message);
  const half = Math.floor((width - 5) / 2);
  if (asked && answer)
    return `“${oneLine(asked, half)}” → ${oneLine(answer, width - 5 - Math.min(half, asked.length))}`;
  return asked ? `“${oneLine(asked, width - 2)}”` : oneLine(answer, width);
}

/** Lists the tasks; `json` prints the page as JSON instead. */
export async function listTasks(
  { client, version }: Session,
  filters: TaskFilters,
  out: Out,
  json: boolean,
): Promise<void> {
  if (version === "0.3")
    throw new CliError("this agent speaks A2A v0.3, which has no ListTasks (use get <taskId>)");
  const page = await client.listTasks(
    ListTasksRequest.fromJSON({
      ...(filters.contextId ? { contextId: filters.contextId } : {}),
      ...(filters.state ? { status: stateOfWord(filters.state) } : {}),
      pageSize: filters.limit,
      historyLength: 10,
      includeArtifacts: true,
    }),
  );
  const tasks = page.tasks.map((t) => SdkTask.toJSON(t) as Json);
  if (json) {
    out.write(`${JSON.stringify({ tasks, nextPageToken: page.nextPageToken }, null, 2)}\n`);
    return;
  }
  if (tasks.length === 0) {
    const filtered = filters.contextId || filters.state ? " matching the filters" : "";
    out.write(
      filters.signedIn || filters.contextId
        ? `no tasks${filtered}\n`
        : `no tasks${filtered}. Anonymous callers see their tasks per conversation: add --context <id> (send, stream and chat print it), or pass --token to see all of yours.\n`,
    );
    return;
  }
  const width = Math.max(40, (process.stdout.columns ?? 100) - 4);
  for (const t of tasks) {
    const status = t.status as { state?: string; timestamp?: string };
    const when = (status.timestamp ?? "").replace("T", " ").slice(0, 16);
    out.write(
      `${String(t.id)}  ${stateName(status.state).padEnd(14)}  ${when}  context ${String(t.contextId)}\n`,
    );
    const line = preview(t, width);
    if (line) out.write(`    ${line}\n`);
  }
  if (page.nextPageToken) out.write(`(the newest ${tasks.length}; --limit <n> shows more)\n`);
}
