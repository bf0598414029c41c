/**
 * A task's artifacts, pinned: the streamed answer (one artifact named `answer`) and the task's
 * PROGRESS.json as it last saw it (artifact `progress`, one JSON data part).
 */
import type { Artifact } from "../protocol/wire.ts";

/** The id (and name) of the answer artifact. */
export const ANSWER_ARTIFACT_ID = "answer";

/** The answer artifact holding `text`. */
export function answerArtifact(text: string): Artifact {
  return { artifactId: ANSWER_ARTIFACT_ID, name: ANSWER_ARTIFACT_ID, parts: [{ text }] };
}

/** The id of the PROGRESS.json artifact. */
export const PROGRESS_ARTIFACT_ID = "progress";
