/** The streamed answer of a task: one artifact named `answer` (the pinned event contract). */
import type { Artifact } from "../a2a/wire.ts";

/** The id (and name) of the answer artifact. */
export const ANSWER_ARTIFACT_ID = "answer";

/** The answer artifact holding `text`. */
export function answerArtifact(text: string): Artifact {
  return { artifactId: ANSWER_ARTIFACT_ID, name: ANSWER_ARTIFACT_ID, parts: [{ text }] };
}
