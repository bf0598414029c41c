/**
 * `a2a_call_streaming` (domain `a2a`): sends a message to a remote A2A agent over its stream and
 * relays the remote progress (status messages, first answer chunk) onto this task's stream as it
 * arrives (harness event `remote`); returns the final answer like a2a_call. Like a blocking
 * a2a_call it stops following at the step's deadline (ToolContext.deadline) and returns the
 * remote task as it is, with its id.
 */
import { z } from "zod";
import { cutNote, withDeadline } from "../../remote/bounded-wait.ts";
import { clientFor } from "../../remote/client.ts";
import { sendRequest, streamEventJson, streamEventText } from "../../remote/sdk-codec.ts";
import { lazy } from "../../utils/lazy.ts";
import { defineTool } from "../input.ts";
import { describeOutcome } from "./a2a-call.ts";
import { remoteId, remoteMessage, withRemote } from "./remote-call.ts";

const toolInput = lazy(() =>
  z.strictObject({
    ...remoteMessage(),
    context_id: remoteId().optional(),
  }),
);

/** Most relayed events per call, so a chatty agent cannot flood this task's stream. */
const MAX_RELAYED = 50;

/** The `a2a_call_streaming` tool. */
export const a2aCallStreamingTool = defineTool({
  name: "a2a_call_streaming",
  domain: "a2a",
  description:
    "Send a message to a remote A2A agent and follow its progress live (shown to the user as it happens); returns its final answer. Prefer it for long remote work.",
  input: toolInput,
  run: ({ agent, message, context_id }, context) =>
    withRemote(context, agent, async (connection) => {
      const label = connection.target.label;
      let text = "";
      let state = "TASK_STATE_SUBMITTED";
      let taskId: string | null = null;
      let relayed = 0;
      let question = "";
      const client = await clientFor(connection.fetch, connection.target);
      const { deadline } = context;
      const signal =
        deadline === undefined ? context.signal : withDeadline(context.signal, deadline);
      const stream = client.sendMessageStream(
        sendRequest({
          parts: [{ text: message }],
          ...(context_id ? { contextId: context_id } : {}),
        }),
        { signal },
      );
      let cut = false;
      try {
        for await (const event of stream) {
          const e = streamEventText(streamEventJson(event));
          if (e.taskId) taskId = e.taskId;
          if (e.state) state = e.state;
          if (e.kind === "artifact") {
            const first = text === "";
            text = e.append ? text + e.text : e.text;
            if (first && text !== "" && relayed < MAX_RELAYED) {
              relayed += 1;
              context.emit({
                kind: "remote",
                text: `${label} is answering`,
                detail: { agent: label },
              });
            }
          } else if (e.kind === "status" && e.text) {
            if (e.state === "TASK_STATE_INPUT_REQUIRED") question = e.text;
            if (relayed < MAX_RELAYED) {
              relayed += 1;
              context.emit({
                kind: "remote",
                text: `${label}: ${e.text.split("\n")[0]?.slice(0, 200)}`,
                detail: { agent: label, state: e.state ?? "" },
              });
            }
          } else if (e.kind === "message") {
            text = e.text;
            state = "MESSAGE";
          }
        }
      } catch (error) {
        // The deadline (not a cancel) cut the stream: the task as it is, with its id.
        if (context.signal.aborted || !signal.aborted || taskId === null) throw error;
        cut = true;
      }
      return {
        content: `${describeOutcome(label, {
          taskId,
          contextId: null,
          state,
          text: text || question,
          statusParts: [],
          artifacts: [],
        })}${cut ? cutNote(taskId) : ""}`,
      };
    }),
});
