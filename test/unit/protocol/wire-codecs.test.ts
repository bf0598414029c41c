/**
 * The plain-JSON codecs that replaced the SDK's classes on the server path give what the SDK
 * gave: ProtoJSON v1.0 shapes (protocol/proto-json.ts) equal the SDK's `toJSON(fromJSON(...))`,
 * and the v0.3 codec (protocol/v03/json-rpc.ts) equals the SDK's v0.3 transport and push serializer
 * fed the same task (the SDK runs here, in the test, only as the reference).
 */
import {
  Message as SdkMessage,
  Task as SdkTask,
  SendMessageRequest,
  StreamResponse,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import {
  LegacyJsonRpcTransportHandler,
  V03PushNotificationSerializer,
} from "@a2a-js/sdk/compat/v0_3/server";
import { type A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { describe, expect, it } from "vitest";
import { protoEvent, protoMessage, protoTask } from "../../../src/protocol/proto-json.ts";
import {
  eventToV03,
  messageToV03,
  pushConfigFromV03,
  pushConfigToV03,
  sendParamsFromV03,
  taskToV03,
} from "../../../src/protocol/v03/json-rpc.ts";
import { messageSendParamsV03 } from "../../../src/protocol/v03/params.ts";
import type { Message, StreamEvent, Task, WirePushConfig } from "../../../src/protocol/wire.ts";
import { pushBody } from "../../../src/push/push-payload.ts";

const agentMessage: Message = {
  messageId: "m-agent",
  role: "ROLE_AGENT",
  contextId: "ctx-1",
  taskId: "task-1",
  parts: [{ text: "which file?" }],
  extensions: [],
};

const task: Task = {
  id: "task-1",
  contextId: "ctx-1",
  status: {
    state: "TASK_STATE_INPUT_REQUIRED",
    message: agentMessage,
    timestamp: "2026-11-25T10:00:00.000Z",
  },
  history: [
    {
      messageId: "m-user",
      role: "ROLE_USER",
      contextId: "ctx-1",
      parts: [
        { text: "hello", metadata: { lang: "en" } },
        { data: { a: 1, b: [true, null] } },
        { data: [1, 2, 3] },
        { raw: "aGVsbG8=", mediaType: "text/plain", filename: "a.txt" },
        { url: "https://example.com/b.png", mediaType: "image/png" },
      ],
      metadata: { privacyConsent: "abc" },
    },
    agentMessage,
  ],
  artifacts: [{ artifactId: "answer", name: "answer", parts: [{ text: "so far" }] }],
  metadata: { owner: "u-1", usage: { inputTokens: 3 } },
};

const events: StreamEvent[] = [
  { task },
  { message: agentMessage },
  {
    statusUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_WORKING", timestamp: "2026-11-25T10:00:01.000Z" },
    },
  },
  {
    statusUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-11-25T10:00:02.000Z" },
      metadata: { final: "yes" },
    },
  },
  {
    artifactUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      artifact: { artifactId: "answer", parts: [{ text: "chunk" }] },
      append: false,
    },
  },
  {
    artifactUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      artifact: { artifactId: "answer", parts: [{ text: "more" }], description: "" },
      append: true,
      lastChunk: true,
    },
  },
];

const sdkRoundTrip = <T>(
  codec: { fromJSON(v: unknown): unknown; toJSON(v: never): unknown },
  value: T,
) => codec.toJSON(codec.fromJSON(value) as never);

/** The SDK's v0.3 JSON-RPC transport over a handler that answers with `answers`. */
async function viaSdkV03(
  method: string,
  params: Record<string, unknown>,
  answers: Partial<A2ARequestHandler>,
): Promise<unknown> {
  const handler = {
    getAgentCard: async () => ({ capabilities: { streaming: true } }),
    ...answers,
  } as unknown as A2ARequestHandler;
  const result = await new LegacyJsonRpcTransportHandler(handler).handle(
    { jsonrpc: "2.0", id: 1, method, params },
    new ServerCallContext({ requestedVersion: "0.3" }),
  );
  if (Symbol.asyncIterator in (result as object)) {
    const out: unknown[] = [];
    for await (const r of result as AsyncGenerator<{ result: unknown }>) out.push(r.result);
    return out;
  }
  return (result as { result?: unknown; error?: unknown }).result ?? result;
}

describe("ProtoJSON v1.0 shapes", () => {
  it("a task, a message and every stream event as the SDK's toJSON(fromJSON) writes them", () => {
    expect(protoTask(task)).toEqual(sdkRoundTrip(SdkTask, task));
    expect(protoMessage(agentMessage)).toEqual(sdkRoundTrip(SdkMessage, agentMessage));
    for (const event of events)
      expect(protoEvent(event)).toEqual(sdkRoundTrip(StreamResponse, event));
  });

  it("a v1.0 push notification body is the SDK's", () => {
    const settled = pushBody("1.0", task, events[3] as StreamEvent, true);
    expect(JSON.parse(settled.body)).toEqual(sdkRoundTrip(StreamResponse, { task }));
    expect(settled.contentType).toBe("application/a2a+json");
    const update = pushBody("1.0", task, events[2] as StreamEvent, false);
    expect(JSON.parse(update.body)).toEqual(sdkRoundTrip(StreamResponse, events[2]));
  });
});

describe("v0.3 codec", () => {
  it("tasks/get, message/send (a message answer) and tasks/cancel answers are the SDK's", async () => {
    const sdkTask = SdkTask.fromJSON(task);
    const got = await viaSdkV03("tasks/get", { id: "task-1" }, { getTask: async () => sdkTask });
    expect(taskToV03(task)).toEqual(got);
    const reply = await viaSdkV03(
      "message/send",
      {
        message: {
          kind: "message",
          messageId: "x",
          role: "user",
          parts: [{ kind: "text", text: "hi" }],
        },
      },
      { sendMessage: async () => SdkMessage.fromJSON(agentMessage) },
    );
    expect(messageToV03(agentMessage)).toEqual(reply);
  });

  it("stream events are the SDK's, with final also on a pause for input", async () => {
    const sdkEvents = (await viaSdkV03(
      "tasks/resubscribe",
      { id: "task-1" },
      {
        resubscribe: async function* () {
          for (const event of events) yield StreamResponse.fromJSON(event);
        },
      },
    )) as unknown[];
    expect(events.map(eventToV03)).toEqual(sdkEvents);
    const paused: StreamEvent = {
      statusUpdate: { taskId: "t", contextId: "c", status: task.status },
    };
    expect(eventToV03(paused)).toMatchObject({ status: { state: "input-required" }, final: true });
  });

  it("message/send params translate to the request the SDK's translation makes", async () => {
    const params = {
      message: {
        kind: "message",
        messageId: "m-1",
        role: "user",
        contextId: "ctx-1",
        parts: [
          { kind: "text", text: "hi", metadata: { k: 1 } },
          { kind: "data", data: { value: [1, 2] }, metadata: { data_part_compat: true } },
          { kind: "data", data: { x: 1 } },
          { kind: "file", file: { bytes: "aGVsbG8=", mimeType: "text/plain", name: "a.txt" } },
          { kind: "file", file: { uri: "https://example.com/f" } },
        ],
        metadata: { privacyConsent: "abc" },
      },
      configuration: {
        acceptedOutputModes: ["text/plain"],
        historyLength: 2,
        pushNotificationConfig: {
          url: "https://example.com/hook",
          token: "t",
          authentication: { schemes: ["Bearer"], credentials: "c" },
        },
      },
      metadata: { trace: "x" },
    };
    let seen: SendMessageRequest | null = null;
    await viaSdkV03("message/send", params, {
      sendMessage: async (request: SendMessageRequest) => {
        seen = request;
        return SdkMessage.fromJSON(agentMessage);
      },
    });
    const ours = sendParamsFromV03(messageSendParamsV03().parse(params));
    expect(sdkRoundTrip(SendMessageRequest, ours)).toEqual(
      SendMessageRequest.toJSON(seen as unknown as SendMessageRequest),
    );
    expect(ours).toMatchObject({ configuration: { returnImmediately: true } });
    const blocking = sendParamsFromV03(
      messageSendParamsV03().parse({ ...params, configuration: { blocking: true } }),
    );
    expect(blocking).toMatchObject({ configuration: { returnImmediately: false } });
  });

  it("push configs translate both ways as the SDK's do", async () => {
    const config = {
      id: "cfg-1",
      url: "https://example.com/hook",
      token: "tok",
      authentication: { schemes: ["Bearer"], credentials: "secret" },
    };
    let seen: TaskPushNotificationConfig | null = null;
    const answer = await viaSdkV03(
      "tasks/pushNotificationConfig/set",
      { taskId: "task-1", pushNotificationConfig: config },
      {
        createTaskPushNotificationConfig: async (request: TaskPushNotificationConfig) => {
          seen = request;
          return request;
        },
      },
    );
    const ours = pushConfigFromV03(config, "task-1");
    expect(sdkRoundTrip(TaskPushNotificationConfig, ours)).toEqual(
      TaskPushNotificationConfig.toJSON(seen as unknown as TaskPushNotificationConfig),
    );
    const wire: WirePushConfig = {
      taskId: "task-1",
      id: "cfg-1",
      url: "https://example.com/hook",
      token: "tok",
      authentication: { scheme: "Bearer", credentials: "secret" },
    };
    expect(ours).toEqual(wire);
    expect(pushConfigToV03(wire)).toEqual(answer);
  });

  it("a v0.3 push notification body is the SDK serializer's", () => {
    const ours = pushBody("0.3", task, events[2] as StreamEvent, false);
    const sdk = new V03PushNotificationSerializer().serialize(
      StreamResponse.fromJSON(events[2]),
      SdkTask.fromJSON(task),
    );
    expect(JSON.parse(ours.body)).toEqual(JSON.parse(sdk.body));
    expect(ours.contentType).toBe(sdk.contentType);
  });
});
