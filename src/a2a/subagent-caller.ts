/**
 * A message that starts a task as another harness's sub-agent names its caller in the metadata
 * key {@link SUBAGENT_METADATA}: the parent task and agent, and the scratchpad (the root task's
 * id) to share through the common bucket. Malformed metadata is a -32602, not ignored.
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { z } from "zod";
import type { Message } from "../protocol/wire.ts";
import { SUBAGENT_METADATA } from "../subagents/transport.ts";

const Id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, "not an id");
const Caller = z.strictObject({
  parentTaskId: Id,
  parentAgent: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, "not an agent name"),
  rootTaskId: Id,
});

/** The remote parent named by a message, if any. */
export function callerOf(
  message: Message,
): { taskId: string; agent: string; rootTaskId: string } | null {
  const raw = message.metadata?.[SUBAGENT_METADATA];
  if (raw === undefined) return null;
  const parsed = Caller.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RequestMalformedError(
      `message.metadata["${SUBAGENT_METADATA}"].${issue?.path.join(".") || ""}: ${issue?.message ?? "invalid"}`,
    );
  }
  return {
    taskId: parsed.data.parentTaskId,
    agent: parsed.data.parentAgent,
    rootTaskId: parsed.data.rootTaskId,
  };
}
