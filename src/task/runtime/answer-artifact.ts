/**
 * A task's artifacts, pinned: the streamed answer (one artifact named `answer`, its metadata
 * carrying the task's `traceId`, and its echo for clients that show only status messages) and the
 * task's PROGRESS.json as it last saw it (artifact `progress`, one JSON data part); and how any
 * artifact is published.
 */
import { ANSWER_ECHO_EXTENSION } from "../../protocol/extensions.ts";
import type { Artifact, StreamEvent } from "../../protocol/wire.ts";
import type { EventLog } from "../store/event-log.ts";
import type { TaskStore } from "../store/task-store.ts";
import type { WriteUnit } from "../store/write-unit.ts";

/** The id (and name) of the answer artifact. */
export const ANSWER_ARTIFACT_ID = "answer";

/**
 * The answer artifact holding `text`; with the task's `traceId` in its metadata when given (the
 * stored artifact, and the stream's chunks that start, replace or end it), so that a client can
 * tie the answer it scores or reports on to the trace.
 */
export function answerArtifact(text: string, traceId?: string): Artifact {
  return {
    artifactId: ANSWER_ARTIFACT_ID,
    name: ANSWER_ARTIFACT_ID,
    parts: [{ text }],
    ...(traceId ? { metadata: { traceId } } : {}),
  };
}

/**
 * The stream event of a chunk of the answer (append, or replace when `append` is false); a chunk
 * that starts, replaces or ends the artifact carries the trace id in its metadata.
 */
export function answerChunk(
  record: { id: string; contextId: string; traceId: string },
  text: string,
  append: boolean,
  lastChunk: boolean,
): StreamEvent {
  return {
    artifactUpdate: {
      taskId: record.id,
      contextId: record.contextId,
      artifact: answerArtifact(text, !append || lastChunk ? record.traceId : undefined),
      append,
      lastChunk,
    },
  };
}

/** The answer streamed so far (a started one) as the answer artifact, or null. */
export function streamedAnswer(
  record: { traceId: string } | null,
  loop: { answerStarted: boolean; answerText: string; turnText: string },
): Artifact | null {
  return loop.answerStarted
    ? answerArtifact(loop.answerText + loop.turnText, record?.traceId)
    : null;
}

/** The id of the PROGRESS.json artifact. */
export const PROGRESS_ARTIFACT_ID = "progress";

/**
 * Publishes an artifact: stored (replacing one of the same id, or with `append` adding its parts
 * to it) and sent as an artifact update on the task's streams, in one unit of work.
 */
export function emitArtifact(
  rt: { store: TaskStore; log: EventLog; unit: WriteUnit },
  artifact: Artifact,
  options: { append?: boolean; lastChunk?: boolean } = {},
): void {
  const record = rt.store.record;
  if (!record) return;
  const earlier = options.append
    ? rt.store.artifacts().find((a) => a.artifactId === artifact.artifactId)
    : undefined;
  rt.unit.run(() => {
    rt.store.putArtifact(
      earlier ? { ...earlier, parts: [...earlier.parts, ...artifact.parts] } : artifact,
    );
    rt.log.append({
      artifactUpdate: {
        taskId: record.id,
        contextId: record.contextId,
        artifact,
        ...(options.append ? { append: true } : {}),
        ...(options.lastChunk ? { lastChunk: true } : {}),
      },
    });
  });
}

/**
 * The answer echo (protocol/answer-echo.ts): a working status update whose message repeats the
 * answer, for clients that show only status messages; with a blank line after the answer when the
 * completed status that follows carries a note, so that a client joining status messages keeps
 * them apart. Sent on the task's streams just before its last answer chunk, never stored.
 */
export function answerEcho(
  record: { id: string; contextId: string },
  answer: string,
  noteFollows: boolean,
): StreamEvent {
  const ids = { taskId: record.id, contextId: record.contextId };
  return {
    statusUpdate: {
      ...ids,
      status: {
        state: "TASK_STATE_WORKING",
        timestamp: new Date().toISOString(),
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_AGENT",
          parts: [{ text: noteFollows ? `${answer}\n\n` : answer }],
          ...ids,
          extensions: [ANSWER_ECHO_EXTENSION],
        },
      },
    },
  };
}
