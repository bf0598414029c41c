/**
 * The HTTP+JSON paths are the method table's (src/a2a/methods.ts): each names its method, with the
 * path's variables decoded into the params' fields; a path is an operation only for its own
 * verbs, and the first variable must be a task id (no `/` or `:`, at most 256 characters).
 */
import { describe, expect, it } from "vitest";
import { rpcMethod } from "../../../../src/a2a/methods.ts";
import { parseRestPath, REST_PATH_PATTERN } from "../../../../src/a2a/rest/rest-paths.ts";

describe("HTTP+JSON paths from the method table", () => {
  it("names the method of each v1.0 and v0.3 path, with its variables decoded", () => {
    const cases: Array<[string, string, string, string, Record<string, string>]> = [
      ["POST", "message:send", "1.0", "SendMessage", {}],
      ["POST", "message:stream", "1.0", "SendStreamingMessage", {}],
      ["GET", "tasks/t%201", "1.0", "GetTask", { id: "t 1" }],
      ["GET", "tasks", "1.0", "ListTasks", {}],
      ["POST", "tasks/t1:cancel", "1.0", "CancelTask", { id: "t1" }],
      ["GET", "tasks/t1:subscribe", "1.0", "SubscribeToTask", { id: "t1" }],
      ["POST", "tasks/t1:subscribe", "1.0", "SubscribeToTask", { id: "t1" }],
      [
        "POST",
        "tasks/t1/pushNotificationConfigs",
        "1.0",
        "CreateTaskPushNotificationConfig",
        { taskId: "t1" },
      ],
      [
        "GET",
        "tasks/t1/pushNotificationConfigs",
        "1.0",
        "ListTaskPushNotificationConfigs",
        { taskId: "t1" },
      ],
      [
        "GET",
        "tasks/t1/pushNotificationConfigs/c:1",
        "1.0",
        "GetTaskPushNotificationConfig",
        { taskId: "t1", id: "c:1" },
      ],
      [
        "DELETE",
        "tasks/t1/pushNotificationConfigs/c1",
        "1.0",
        "DeleteTaskPushNotificationConfig",
        { taskId: "t1", id: "c1" },
      ],
      ["GET", "extendedAgentCard", "1.0", "GetExtendedAgentCard", {}],
      ["POST", "v1/message:send", "0.3", "message/send", {}],
      ["POST", "v1/message:stream", "0.3", "message/stream", {}],
      ["GET", "v1/tasks/t1", "0.3", "tasks/get", { id: "t1" }],
      ["POST", "v1/tasks/t1:cancel", "0.3", "tasks/cancel", { id: "t1" }],
      ["GET", "v1/tasks/t1:subscribe", "0.3", "tasks/resubscribe", { id: "t1" }],
      [
        "POST",
        "v1/tasks/t1/pushNotificationConfigs",
        "0.3",
        "tasks/pushNotificationConfig/set",
        { taskId: "t1" },
      ],
      [
        "DELETE",
        "v1/tasks/t1/pushNotificationConfigs/c1",
        "0.3",
        "tasks/pushNotificationConfig/delete",
        { taskId: "t1", id: "c1" },
      ],
      ["GET", "v1/card", "0.3", "agent/getAuthenticatedExtendedCard", {}],
    ];
    for (const [verb, path, version, name, vars] of cases) {
      expect(parseRestPath(verb, path), `${verb} ${path}`).toEqual({ version, name, vars });
      expect(new RegExp(`^${REST_PATH_PATTERN}$`).test(path), path).toBe(true);
      expect(rpcMethod(version === "0.3" ? "0.3" : "1.0", name), name).toBeDefined();
    }
  });

  it("is no operation for another verb, a bad task id, an undecodable variable or no such path", () => {
    const cases: Array<[string, string]> = [
      ["GET", "message:send"],
      ["DELETE", "tasks/t1"],
      ["POST", "extendedAgentCard"],
      ["GET", "v1/tasks"],
      ["GET", "v1/extendedAgentCard"],
      ["GET", "card"],
      ["GET", "tasks/a:b"],
      ["GET", "tasks/a%3Ab"],
      ["GET", `tasks/${"x".repeat(257)}`],
      ["GET", "tasks/%E0%A4%A"],
      ["GET", "tasks/t1/pushNotificationConfigs/%E0%A4%A"],
      ["POST", "tasks/t1:cancel/pushNotificationConfigs"],
      ["GET", "tasks/t1/pushNotificationConfigs/"],
      ["POST", "v1/v1/message:send"],
    ];
    for (const [verb, path] of cases)
      expect(parseRestPath(verb, path), `${verb} ${path}`).toBeNull();
  });
});
