/**
 * A conversation's first task handing the conversation to its new object. A conversation the
 * server opened for a task has no object while that task is its only one (context-membership.ts);
 * when a second task joins, the join makes the object, which asks the first task for the
 * conversation: the task stops holding it alone and hands over its turns so far. Synchronous:
 * nothing else of the task runs between reading and writing.
 */
import { contextKey, type Handover } from "../../conversations/join.ts";
import type { HookState } from "../../loop/contracts.ts";
import { isSettled } from "../../protocol/task-states.ts";
import type { ContextLinkStore } from "../store/context-link.ts";
import type { TaskStore } from "../store/task-store.ts";
import { handoverTurns } from "./release-content.ts";

/** What a handover reads and writes in the task. */
export interface HandoverRuntime {
  store: TaskStore;
  contextLink: ContextLinkStore;
  hookState: HookState;
}

/**
 * Hands the conversation `key` to its new object. A working task keeps holding it (the object
 * queues it first) and hands back the turns of its current run when it releases it; a settled
 * one hands them over now and has released it. Asked again (the object lost its first answer),
 * it hands over the same turns, which the object applies once. `found: false` when this is not
 * a task of that conversation.
 */
export function handOver(rt: HandoverRuntime, key: string): Handover {
  const record = rt.store.record;
  if (!record || contextKey(record.owner, record.agent, record.contextId) !== key)
    return { found: false };
  const link = rt.contextLink.get();
  const held = link.state === "active" && !isSettled(record.state);
  const handing = link.alone && !held;
  const upto = handing
    ? (rt.store.historyAfter(link.releasedUpto).at(-1)?.seq ?? link.releasedUpto)
    : link.releasedUpto;
  rt.contextLink.patch({
    alone: false,
    releasedUpto: upto,
    ...(handing ? { state: "released" as const } : {}),
  });
  return { found: true, held, upto, turns: handoverTurns(rt, upto) };
}
