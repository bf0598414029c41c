/**
 * Inputs for the v0.3 golden test (v03-golden.test.ts): v1.0 wire values in every shape the two
 * v0.3 dialects translate (every part kind, every state, empty and absent fields), and v0.3
 * requests in the forms clients send them (JSON-RPC params; HTTP+JSON bodies under JSON and proto
 * names). The golden file holds what the translation made of them when it was recorded.
 */

import { TASK_STATES } from "../../../src/protocol/task-states.ts";
import type {
  Message,
  SendResult,
  StreamEvent,
  Task,
  TaskStateName,
  WirePushConfig,
} from "../../../src/protocol/wire.ts";

const agentMessage: Message = {
  messageId: "m-agent",
  role: "ROLE_AGENT",
  contextId: "ctx-1",
  taskId: "task-1",
  parts: [{ text: "which file?" }, { data: { form: true }, metadata: { extension: "x" } }],
  extensions: [],
  referenceTaskIds: ["task-0"],
};

const userMessage: Message = {
  messageId: "m-user",
  role: "ROLE_USER",
  contextId: "ctx-1",
  parts: [
    { text: "hello", metadata: { lang: "en" } },
    { data: { a: 1, b: [true, null] } },
    { data: [1, 2, 3] },
    { data: "text as data" },
    { raw: "aGVsbG8=", mediaType: "text/plain", filename: "a.txt" },
    { url: "https://example.com/b.png", mediaType: "image/png" },
    { url: "https://example.com/c", filename: "c" },
  ],
  metadata: { privacyConsent: "abc" },
  extensions: ["urn:x"],
};

/** A task in `state`, with history, artifacts and metadata. */
const taskIn = (state: TaskStateName): Task => ({
  id: "task-1",
  contextId: "ctx-1",
  status: { state, message: agentMessage, timestamp: "2026-11-25T10:00:00.000Z" },
  history: [userMessage, agentMessage],
  artifacts: [
    { artifactId: "answer", name: "answer", parts: [{ text: "so far" }] },
    {
      artifactId: "other",
      description: "a file",
      parts: [{ raw: "aGk=", mediaType: "text/plain" }],
      metadata: { traceId: "t" },
    },
  ],
  metadata: { owner: "u-1", usage: { inputTokens: 3 } },
});

/** One task per state, and a bare one (no history, artifacts, metadata or status message). */
export const tasks: Task[] = [
  ...TASK_STATES.map(taskIn),
  {
    id: "task-2",
    contextId: "ctx-2",
    status: { state: "TASK_STATE_SUBMITTED", timestamp: "2026-11-25T10:00:00.000Z" },
  },
  {
    id: "task-3",
    contextId: "ctx-3",
    status: { state: "TASK_STATE_WORKING", timestamp: "" },
    history: [],
    artifacts: [],
  },
];

export const messages: Message[] = [
  agentMessage,
  userMessage,
  { messageId: "m-bare", role: "ROLE_AGENT", parts: [{ text: "" }] },
];

/** Every kind of stream event, status updates in every state. */
export const events: StreamEvent[] = [
  { task: taskIn("TASK_STATE_WORKING") },
  { message: agentMessage },
  ...TASK_STATES.map(
    (state): StreamEvent => ({
      statusUpdate: {
        taskId: "task-1",
        contextId: "ctx-1",
        status: { state, message: agentMessage, timestamp: "2026-11-25T10:00:01.000Z" },
        metadata: { traceId: "t" },
      },
    }),
  ),
  {
    statusUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_WORKING", timestamp: "" },
    },
  },
  {
    artifactUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      artifact: { artifactId: "answer", name: "answer", parts: [{ text: "chunk" }] },
    },
  },
  {
    artifactUpdate: {
      taskId: "task-1",
      contextId: "ctx-1",
      artifact: { artifactId: "answer", parts: [{ text: "more" }], description: "" },
      append: true,
      lastChunk: true,
      metadata: { traceId: "t" },
    },
  },
];

/** Send answers: a task, and a message an agent answered with instead. */
export const sendResults: SendResult[] = [
  { task: taskIn("TASK_STATE_SUBMITTED") },
  { message: agentMessage },
];

/** v1.0 push configs as the gateway answers them. */
export const pushConfigs: WirePushConfig[] = [
  { taskId: "task-1", id: "cfg-1", url: "https://example.com/hook" },
  {
    taskId: "task-1",
    id: "cfg-2",
    url: "https://example.com/hook",
    token: "tok",
    authentication: { scheme: "Bearer", credentials: "secret" },
  },
  {
    taskId: "task-1",
    id: "cfg-3",
    url: "https://example.com/hook",
    authentication: { scheme: "" },
  },
];

/** JSON-RPC v0.3 `message/send` params (valid: the v0.3 schema has passed them). */
export const rpcSendParams: Array<Record<string, unknown>> = [
  {
    message: {
      kind: "message",
      messageId: "m-1",
      role: "user",
      parts: [
        { kind: "text", text: "hi", metadata: { a: 1 } },
        { kind: "file", file: { bytes: "aGk=", mimeType: "text/plain", name: "a.txt" } },
        { kind: "file", file: { uri: "https://example.com/x", mimeType: "" } },
        { kind: "data", data: { value: 3 }, metadata: { data_part_compat: true } },
        { kind: "data", data: { value: 3 }, metadata: { data_part_compat: true, other: 1 } },
        { kind: "data", data: { plain: true } },
      ],
      contextId: "ctx-1",
      taskId: "task-1",
      metadata: { m: 1 },
      extensions: ["urn:x"],
      referenceTaskIds: ["task-0"],
    },
    configuration: {
      acceptedOutputModes: ["text/plain"],
      historyLength: 2,
      pushNotificationConfig: {
        url: "https://example.com/hook",
        id: "c",
        token: "t",
        authentication: { schemes: ["Bearer"], credentials: "x" },
      },
    },
    metadata: { request: 1 },
  },
  {
    message: {
      kind: "message",
      messageId: "m-2",
      role: "user",
      parts: [{ kind: "text", text: "x" }],
    },
    configuration: { blocking: true },
  },
  {
    message: {
      kind: "message",
      messageId: "m-3",
      role: "user",
      parts: [{ kind: "text", text: "x" }],
    },
    configuration: {
      blocking: false,
      pushNotificationConfig: { url: "https://e.com", authentication: {} },
    },
  },
  {
    message: {
      kind: "message",
      messageId: "m-4",
      role: "user",
      parts: [{ kind: "text", text: "x" }],
    },
  },
];

/** JSON-RPC v0.3 push configs (`tasks/pushNotificationConfig/set`'s `pushNotificationConfig`). */
export const rpcPushConfigs: Array<Record<string, unknown>> = [
  { url: "https://example.com/hook" },
  {
    url: "https://example.com/hook",
    id: "c",
    token: "t",
    authentication: { schemes: ["Basic", "Bearer"], credentials: "x" },
  },
  { url: "https://example.com/hook", id: "", token: "", authentication: { schemes: [] } },
];

/** HTTP+JSON v0.3 `message:send` bodies, as the kits send them. */
export const restSendBodies: unknown[] = [
  {
    message: {
      messageId: "m-1",
      role: "ROLE_USER",
      content: [
        { text: "hi", metadata: { a: 1 } },
        { file: { fileWithBytes: "aGk=", mimeType: "text/plain", name: "a.txt" } },
        { file: { file_with_uri: "https://example.com/x", mime_type: "" } },
        { data: { data: { v: 1 } } },
        { data: 5 },
        { other: true },
      ],
      context_id: "ctx-1",
    },
    configuration: {
      accepted_output_modes: ["text/plain"],
      history_length: 3,
      push_notification: { url: "https://example.com/hook" },
    },
    metadata: { request: 1 },
  },
  {
    message: { message_id: "m-2", role: "ROLE_USER", parts: [{ text: "x" }] },
    configuration: { blocking: true },
  },
  { request: { messageId: "m-3", content: [{ text: "x" }] }, configuration: {} },
  { message: { messageId: "m-4", content: [{ text: "x" }] } },
  "not an object",
  null,
];

/** HTTP+JSON v0.3 push config bodies. */
export const restPushBodies: Array<Record<string, unknown>> = [
  { url: "https://example.com/hook" },
  {
    pushNotificationConfig: {
      url: "https://example.com/hook",
      token: "t",
      authentication: { schemes: ["Bearer"], credentials: "c" },
    },
  },
  {
    config: { pushNotificationConfig: { url: "https://example.com/hook", id: "inner" } },
    config_id: "outer",
  },
  { config: { url: "https://example.com/hook", authentication: { scheme: "Basic" } } },
  { push_notification_config: { url: "https://example.com/hook", token: "" }, configId: "" },
];
