/**
 * A message that starts a task as another harness's sub-agent names its caller in the metadata
 * key {@link SUBAGENT_METADATA}: the calling agent, an opaque correlation id of the calling task,
 * and the scratchpad id to share through a common bucket. None of them is a task or context id
 * (those work as capabilities where they came from). Malformed metadata is a -32602, not ignored.
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { z } from "zod";
import type { Message } from "../protocol/wire.ts";
import { SUBAGENT_METADATA } from "../subagents/transport.ts";
import { lazy } from "../utils/lazy.ts";

const opaqueId = lazy(() =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, "not an opaque id"),
);
const callerSchema = lazy(() =>
  z.strictObject({
    correlationId: opaqueId(),
    parentAgent: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, "not an agent name"),
    scratchId: opaqueId(),
  }),
);

/** The remote parent named by a message, if any. */
export function callerOf(
  message: Message,
): { correlationId: string; agent: string; scratchId: string } | null {
  const raw = message.metadata?.[SUBAGENT_METADATA];
  if (raw === undefined) return null;
  const parsed = callerSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RequestMalformedError(
      `message.metadata["${SUBAGENT_METADATA}"].${issue?.path.join(".") || ""}: ${issue?.message ?? "invalid"}`,
    );
  }
  return {
    correlationId: parsed.data.correlationId,
    agent: parsed.data.parentAgent,
    scratchId: parsed.data.scratchId,
  };
}
