/**
 * The A2A 1.1 draft's TaskGenerationMismatchError, which `@a2a-js/sdk` does not have yet: a send
 * whose `configuration.ifGenerationMatch` is not the task's generation. An A2AError, so the one
 * error table (edge/errors.ts: JSON-RPC -32010, HTTP 409 ABORTED) answers it with its ErrorInfo
 * (reason TASK_GENERATION_MISMATCH; metadata taskId, expectedGeneration, currentGeneration) as
 * the draft's §11.6 example shows. Pure: no I/O.
 */
import { A2AError } from "@a2a-js/sdk/errors";

/** A send refused because the task moved past the generation the client expected. */
export class TaskGenerationMismatchError extends A2AError {
  // Set here, not read from the class binding, so a bundler's renaming cannot change it.
  override readonly name = "TaskGenerationMismatchError";
  override readonly reason = "TASK_GENERATION_MISMATCH";
}
