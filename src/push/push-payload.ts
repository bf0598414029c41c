/**
 * What a push notification carries, in the shape of the protocol version that created the config:
 * v1.0 a `StreamResponse` (`application/a2a+json`): the Task when the task ended or waits for
 * input, else the status update, as ProtoJSON writes them; v0.3 the Task in the v0.3 shape
 * (`application/json`, protocol/v03/json-rpc.ts). Plain JSON: no SDK classes.
 */
import { protoEvent } from "../protocol/proto-json.ts";
import { taskToV03 } from "../protocol/v03/json-rpc.ts";
import type { StreamEvent, Task } from "../protocol/wire.ts";
import type { PushProtocol } from "./push-config.ts";

/** History messages a notification's Task carries (the newest). */
export const PUSH_HISTORY_LENGTH = 10;

/** The body and content type of one notification. */
export function pushBody(
  protocol: PushProtocol,
  task: Task,
  statusUpdate: StreamEvent,
  settled: boolean,
): { body: string; contentType: string } {
  if (protocol === "0.3")
    return { body: JSON.stringify(taskToV03(task)), contentType: "application/json" };
  const event = protoEvent(settled ? { task } : statusUpdate);
  return { body: JSON.stringify(event), contentType: "application/a2a+json" };
}
