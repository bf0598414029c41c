/**
 * Task generations in the gateway, for a caller that activated them (GatewayCaller.generations,
 * from the A2A edge: a2a/extension-activation.ts): a stream event carries its sequence number in
 * the task's event log as its `generation` (task/generation.ts: the two are one number); the task
 * objects answer tasks with theirs when asked ({@link generationOption}); and GetTask's
 * `currentGeneration` is held by the task object (task/generation.ts) at most
 * {@link LONG_POLL_MAX_MS}. For any other caller nothing here changes a byte.
 */
import type { StreamEvent } from "../protocol/wire.ts";
import type { GatewayCaller, GatewayEvent } from "./task-gateway.ts";

/** The longest GetTask with `currentGeneration` holds: well under a deploy's grace period. */
export const LONG_POLL_MAX_MS = 25_000;

/** A long poll as the task object holds it: until its generation is past `after`, `ms` at most. */
export interface LongPoll {
  after: number;
  ms: number;
}

/** What a task object call adds to ask for the task's generation, for a caller that reads it. */
export const generationOption = (caller: GatewayCaller): { generation?: true } =>
  caller.generations ? { generation: true } : {};

/** `event` with the generation `seq` (a task, status or artifact event; a Message has none). */
export function withGeneration(event: StreamEvent, seq: number): StreamEvent {
  const generation = String(seq);
  if ("task" in event) return { task: { ...event.task, generation } };
  if ("statusUpdate" in event) return { statusUpdate: { ...event.statusUpdate, generation } };
  if ("artifactUpdate" in event) return { artifactUpdate: { ...event.artifactUpdate, generation } };
  return event;
}

/** The caller's events: with their generations when it activated them, else as they are. */
export async function* callerEvents(
  caller: GatewayCaller,
  events: AsyncGenerator<GatewayEvent, void>,
): AsyncGenerator<GatewayEvent, void> {
  if (!caller.generations) return yield* events;
  for await (const { seq, event } of events)
    yield { seq, event: seq === null ? event : withGeneration(event, seq) };
}
