/**
 * The v1.0 wire shapes as ProtoJSON writes them (protobuf.dev JSON mapping, spec 1.0.1 §5.5):
 * a field at its default (an empty list or string, `false`) is left out. The task object may hold
 * `artifacts: []` or an artifact update with `append: false`; clients of the official kits read
 * both forms, but the answers stay byte-for-byte what a ProtoJSON server sends. Pure: no I/O.
 */
import type {
  Artifact,
  Message,
  StreamEvent,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
} from "./wire.ts";

type Json = Record<string, unknown>;

/** `value` without the keys whose value is a ProtoJSON default ("", [], false, undefined). */
function withoutDefaults<T extends object>(value: T, keys: readonly string[]): T {
  let out: Json | null = null;
  for (const key of keys) {
    const item = (value as Json)[key];
    const empty =
      item === undefined ||
      item === "" ||
      item === false ||
      (Array.isArray(item) && item.length === 0);
    if (!empty || !Object.hasOwn(value, key)) continue;
    out ??= { ...(value as Json) };
    delete out[key];
  }
  return (out ?? value) as T;
}

/** A message as ProtoJSON writes it. */
export function protoMessage(message: Message): Message {
  return withoutDefaults(message, ["contextId", "taskId", "extensions", "referenceTaskIds"]);
}

function protoStatus(status: TaskStatus): TaskStatus {
  return status.message ? { ...status, message: protoMessage(status.message) } : status;
}

function protoArtifact(artifact: Artifact): Artifact {
  return withoutDefaults(artifact, ["name", "description", "extensions"]);
}

/** A task as ProtoJSON writes it. */
export function protoTask(task: Task): Task {
  const out = withoutDefaults(task, ["artifacts", "history"]);
  return {
    ...out,
    status: protoStatus(out.status),
    ...(out.history ? { history: out.history.map(protoMessage) } : {}),
    ...(out.artifacts ? { artifacts: out.artifacts.map(protoArtifact) } : {}),
  };
}

function protoArtifactUpdate(update: TaskArtifactUpdateEvent): TaskArtifactUpdateEvent {
  const out = withoutDefaults(update, ["append", "lastChunk"]);
  return { ...out, artifact: protoArtifact(out.artifact) };
}

/** A stream event (the StreamResponse oneof) as ProtoJSON writes it. */
export function protoEvent(event: StreamEvent): StreamEvent {
  if ("task" in event) return { task: protoTask(event.task) };
  if ("message" in event) return { message: protoMessage(event.message) };
  if ("statusUpdate" in event) {
    const update = event.statusUpdate;
    return { statusUpdate: { ...update, status: protoStatus(update.status) } };
  }
  return { artifactUpdate: protoArtifactUpdate(event.artifactUpdate) };
}
