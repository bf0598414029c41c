/**
 * What a push notification carries, in the shape of the protocol version that created the config,
 * serialised by the SDK: v1.0 a `StreamResponse` (`application/a2a+json`): the Task when the task
 * ended or waits for input, else the status update; v0.3 the Task (`application/json`).
 */
import { Task as SdkTask, StreamResponse } from "@a2a-js/sdk";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import { V1PushNotificationSerializer } from "@a2a-js/sdk/server";
import type { StreamEvent, Task } from "../protocol/wire.ts";
import type { PushProtocol } from "./push-config.ts";

/** History messages a notification's Task carries (the newest). */
export const PUSH_HISTORY_LENGTH = 10;

const v1 = new V1PushNotificationSerializer();
const v03 = new V03PushNotificationSerializer();

/** The body and content type of one notification. */
export function pushBody(
  protocol: PushProtocol,
  task: Task,
  statusUpdate: StreamEvent,
  settled: boolean,
): { body: string; contentType: string } {
  const sdkTask = SdkTask.fromJSON(task);
  const event = StreamResponse.fromJSON(settled ? { task } : statusUpdate);
  return protocol === "0.3" ? v03.serialize(event, sdkTask) : v1.serialize(event, sdkTask);
}
