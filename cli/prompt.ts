/**
 * `prompt <taskId>`: what the model saw in a task of this harness, from the owner-only route
 * `GET /api/tasks/<id>/prompt` (with the CLI's token): the newest kept model request as text to
 * read (which call, the model and its limits, the system prompt, the tools by name, then each
 * message: text, tool calls with their input, tool results), or with `--json` the route's answer
 * (every kept request, each `body` exactly as sent). Failures are one line with the server's reason.
 */
import { contentText } from "../src/model/request-text.ts";
import type { CommandLine } from "./command-line.ts";
import { CliError, serverMessage } from "./errors.ts";
import type { Out } from "./render.ts";
import type { Http } from "./target.ts";

/** A kept request as the route answers it. */
interface KeptRequest {
  seq: number;
  kind: string;
  turn: number;
  attempt: number;
  at: string;
  body: string;
}

/** Runs `prompt <taskId>`; its exit code. */
export async function promptCommand(line: CommandLine, http: Http, out: Out): Promise<number> {
  const href = new URL(`/api/tasks/${encodeURIComponent(line.agent)}/prompt`, line.url);
  const response = await http.fetch(href.href);
  if (!response.ok) {
    const said = await serverMessage(response);
    throw new CliError(`prompt: ${said ?? `HTTP ${response.status}`} (HTTP ${response.status})`);
  }
  const view = (await response.json()) as { requests: KeptRequest[] };
  if (line.json) {
    out.write(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  }
  const newest = view.requests.at(-1);
  if (!newest) {
    out.write("no model request kept for this task (it has not called the model yet)\n");
    return 0;
  }
  out.write(renderRequest(newest, view.requests.length));
  return 0;
}

/** A kept request as text to read. */
export function renderRequest(request: KeptRequest, kept: number): string {
  const body = JSON.parse(request.body) as {
    model?: string;
    max_tokens?: number;
    system?: unknown;
    tools?: Array<{ name: string }>;
    messages?: Array<{ role: string; content: unknown }>;
  };
  const lines = [
    `request ${request.seq} (${request.kind} ${request.turn}, attempt ${request.attempt}, ${request.at}); ${kept} kept, --json shows them all`,
    `model ${body.model}, max_tokens ${body.max_tokens}, ${request.body.length} characters`,
    "",
    "== system",
    contentText(body.system ?? ""),
    "",
    `== tools (${body.tools?.length ?? 0})`,
    (body.tools ?? []).map((t) => t.name).join(", "),
  ];
  for (const message of body.messages ?? []) {
    lines.push("", `== ${message.role}`, contentText(message.content));
  }
  return `${lines.join("\n")}\n`;
}
