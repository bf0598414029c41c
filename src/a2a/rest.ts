/**
 * The HTTP+JSON (REST) binding of an agent, v1.0 paths and v0.3 `v1/` paths, on the same
 * request handler as JSON-RPC. Bodies and query parameters are checked with the same zod
 * schemas; answers are `application/a2a+json` to clients that ask for it, else `application/json`
 * (media-types.ts; v0.3: `application/json`), errors use the spec's
 * HTTP statuses with a google.rpc.Status body (v0.3: `{ code, message }`), streams are SSE whose
 * `data` is the bare StreamResponse and whose `id` is the task event's sequence number.
 */
import {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  Message as SdkMessage,
  Task as SdkTask,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
} from "@a2a-js/sdk";
import {
  isRestError,
  restStatusFor,
  toRestErrorBody,
  VersionNotSupportedError,
} from "@a2a-js/sdk/errors";
import type { Context } from "hono";
import type { z } from "zod";
import type { Message, StreamEvent, Task } from "../protocol/wire.ts";
import { invalidParams, JsonRpcProtocolError, toLegacyErrorObject } from "./jsonrpc-errors.ts";
import { answerMediaType } from "./media-types.ts";
import { GetTaskParams, ListTasksParams, SendMessageParams } from "./params.ts";
import type { DurableRequestHandler } from "./request-handler.ts";
import { readJsonBody } from "./rest-body.ts";
import { eventToV03, messageToV03, sendRequestFromV03, taskToV03 } from "./rest-codec-v03.ts";
import type { RestRoute } from "./rest-paths.ts";
import { restPush } from "./rest-push.ts";
import { bindingSse, sseResponse } from "./sse.ts";
import { unsupportedVersionMessage } from "./version.ts";

/** What a REST call needs. */
export interface RestOptions {
  handler: DurableRequestHandler;
  /** The protocol version the request asked for (header or query; no header means 0.3). */
  version: string;
  keepaliveMs: number;
  onInternalError?(error: unknown): void;
  /** Re-checks the caller's credentials during a stream. */
  stillAuthorized?(): Promise<boolean>;
}

/** A REST failure body and status, in the shape of the route's protocol version. */
function failure(
  route: { version: string },
  error: unknown,
  onInternalError?: (e: unknown) => void,
): { status: number; body: unknown } {
  if (route.version === "0.3") {
    const body = toLegacyErrorObject(error);
    const status = isRestError(error) ? error.statusCode : (LEGACY_STATUS[body.code] ?? 500);
    if (status === 500) onInternalError?.(error);
    return { status, body: status === 500 ? { code: -32603, message: "Internal error" } : body };
  }
  if (error instanceof JsonRpcProtocolError) {
    return {
      status: 400,
      body: {
        error: {
          code: 400,
          status: "INVALID_ARGUMENT",
          message: error.message,
          details: error.error.data ?? [],
        },
      },
    };
  }
  const status = restStatusFor(error);
  if (status >= 500) {
    onInternalError?.(error);
    return {
      status: 500,
      body: { error: { code: 500, status: "INTERNAL", message: "Internal error", details: [] } },
    };
  }
  return { status, body: toRestErrorBody(error, status) };
}

const LEGACY_STATUS: Readonly<Record<number, number>> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 404,
  [-32602]: 400,
  [-32603]: 500,
  [-32001]: 404,
  [-32002]: 400,
  [-32003]: 400,
  [-32004]: 400,
  [-32005]: 400,
  [-32006]: 500,
  [-32007]: 400,
  [-32009]: 400,
};

function parse<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidParams(result.error, prefix);
  return result.data;
}

const encodeTask = (route: RestRoute, task: SdkTask) => {
  const wire = SdkTask.toJSON(task) as Task;
  return route.version === "0.3" ? taskToV03(wire) : wire;
};

/** Answers one REST call. */
export async function handleRest(
  c: Context,
  route: RestRoute,
  options: RestOptions,
): Promise<Response> {
  const contentType =
    route.version === "0.3" ? "application/json" : answerMediaType(c.req.raw.headers);
  const respond = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": contentType } });
  try {
    const wanted = route.version;
    if (options.version !== wanted) {
      throw new VersionNotSupportedError(
        `${unsupportedVersionMessage(options.version)} These are the A2A ${wanted} HTTP+JSON paths${wanted === "1.0" ? "; send A2A-Version: 1.0" : ""}.`,
      );
    }
    const { handler } = options;
    switch (route.op) {
      case "send": {
        const raw = await readJsonBody(c);
        const wire = parse(
          SendMessageParams,
          route.version === "0.3" ? sendRequestFromV03(raw) : raw,
          "body",
        );
        const request = SendMessageRequest.fromJSON(wire);
        if (route.stream)
          return await stream(c, route, handler.sendMessageStream(request), options);
        const result = await handler.sendMessage(request);
        if ("messageId" in result) {
          const message = SdkMessage.toJSON(result) as Message;
          return respond({ message: route.version === "0.3" ? messageToV03(message) : message });
        }
        return respond({ task: encodeTask(route, result) });
      }
      case "get": {
        const params = parse(GetTaskParams, { ...c.req.query(), id: route.id }, "query");
        return respond(encodeTask(route, await handler.getTask(GetTaskRequest.fromJSON(params))));
      }
      case "list": {
        const params = parse(ListTasksParams, c.req.query(), "query");
        const page = await handler.listTasks(ListTasksRequest.fromJSON(params));
        return respond({
          tasks: page.tasks.map((t) => {
            const wire = SdkTask.toJSON(t) as Task;
            return params.includeArtifacts ? { ...wire, artifacts: wire.artifacts ?? [] } : wire;
          }),
          nextPageToken: page.nextPageToken,
          pageSize: page.pageSize,
          totalSize: page.totalSize,
        });
      }
      case "cancel":
        return respond(
          encodeTask(route, await handler.cancelTask(CancelTaskRequest.fromJSON({ id: route.id }))),
        );
      case "subscribe":
        return await stream(
          c,
          route,
          handler.resubscribe(SubscribeToTaskRequest.fromJSON({ id: route.id })),
          options,
        );
      case "push":
        return await restPush(c, route, handler, respond);
      case "extendedCard":
        return respond(AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard()));
    }
  } catch (error) {
    const { status, body } = failure(route, error, options.onInternalError);
    return respond(body, status);
  }
}

async function stream(
  c: Context,
  route: RestRoute,
  source: AsyncGenerator<StreamResponse, void, undefined>,
  options: RestOptions,
): Promise<Response> {
  const encode = (event: StreamResponse) => {
    const wire = StreamResponse.toJSON(event) as StreamEvent;
    return JSON.stringify(route.version === "0.3" ? eventToV03(wire) : wire);
  };
  const first = await source.next();
  async function* rest(): AsyncGenerator<string, void, undefined> {
    for await (const event of source) yield encode(event);
  }
  // Nothing at all: a reconnect after the last event of an ended task closes at once.
  return sseResponse(
    c,
    first.done ? null : encode(first.value),
    rest(),
    bindingSse(
      options,
      (error) => JSON.stringify(failure(route, error, options.onInternalError).body),
      {
        error: {
          code: 401,
          status: "UNAUTHENTICATED",
          message: "Unauthorized: the credentials were revoked",
        },
      },
    ),
  );
}
