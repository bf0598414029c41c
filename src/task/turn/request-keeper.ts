/**
 * What the model sees, kept for people: a listener for a model client (model/client.ts) that
 * keeps each request body a model call of the turn's task sends, with the turn and attempt it
 * belongs to, in the task's store of latest requests (trace/model-requests.ts).
 */
import type { RequestListener } from "../../model/client.ts";
import type { CallOrigin } from "../../trace/model-calls.ts";
import type { Turn } from "./turn.ts";

/** Keeps each request body of `turn`'s task's model calls of `kind`, as sent. */
export function requestKeeper(turn: Turn, kind: CallOrigin["kind"]): RequestListener {
  const { task } = turn;
  return (body) => {
    const loop = task.loopState.get();
    const attempt = kind === "turn" ? loop.attempt : 0;
    task.modelRequests.record({ kind, turn: loop.turn, attempt }, body, Date.now());
  };
}
