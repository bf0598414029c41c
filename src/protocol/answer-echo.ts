/**
 * Telling the answer echo from other status messages. Just before a task completes, its stream
 * carries the answer once more as a working status message that lists the answer-echo extension,
 * for clients that show only status messages (the AG-UI bridge `@ag-ui/a2a`); a client that shows
 * the `answer` artifact (the CLI, the web console, the MCP face's progress notes, a remote call's
 * relay) skips it, so the answer is shown once. Pure: no I/O; the CLI and the console import it.
 */
import { ANSWER_ECHO_EXTENSION } from "./extensions.ts";

/** Whether `message` is the echo of a task's answer. */
export function isAnswerEcho(
  message: { extensions?: readonly string[] | undefined } | undefined,
): boolean {
  return message?.extensions?.includes(ANSWER_ECHO_EXTENSION) === true;
}
