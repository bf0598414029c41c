/**
 * The HTTP+JSON (REST) binding of an agent, v1.0 paths and v0.3 `v1/` paths, running the same
 * operations as JSON-RPC (methods.ts, operations.ts) with the same schemas: the body is read and
 * parsed once (rest-body.ts), validated once. Answers are `application/a2a+json` to clients that
 * ask for it, else `application/json` (media-types.ts; v0.3: `application/json`); errors use the
 * spec's HTTP statuses with a google.rpc.Status body (v0.3: `{ code, message }`), from the one
 * error table (errors.ts); streams are SSE whose `data` is the bare StreamResponse and whose `id`
 * is the task event's sequence number. HttpErrors (consent) pass through to the Worker's onError.
 */
import { VersionNotSupportedError } from "@a2a-js/sdk/errors";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import { invalidParams, restFailure } from "../../edge/errors.ts";
import { answerMediaType } from "../../edge/media-types.ts";
import {
  type BindingStream,
  bindingSse,
  REVOKED_MESSAGE,
  type SseItem,
  sourceSse,
} from "../../edge/sse.ts";
import type { ListTasksPage } from "../../gateway/list-tasks.ts";
import type { GatewayEvent } from "../../gateway/task-gateway.ts";
import type { RestRoute } from "../../protocol/app-types.ts";
import { GetTaskParams, ListTasksParams, SendMessageParams } from "../../protocol/params.ts";
import {
  eventToV03Proto as eventToV03,
  messageToV03Proto as messageToV03,
  sendRequestFromV03Proto as sendRequestFromV03,
  taskToV03Proto as taskToV03,
} from "../../protocol/v03/http-json.ts";
import type { Message, SendResult, Task } from "../../protocol/wire.ts";
import type { CallContext } from "../call-context.ts";
import { runStream, runUnary } from "../operations.ts";
import { unsupportedVersionMessage } from "../version.ts";
import { readJsonBody } from "./rest-body.ts";
import { restPush } from "./rest-push.ts";

/** What a REST call needs. */
export interface RestOptions extends BindingStream {
  /** The protocol version the request asked for (header or query; no header means 0.3). */
  version: string;
  /** The agent's gateway, the caller and the card (built by routes.ts). */
  context(): Promise<CallContext>;
  /** Refuses a message the caller may not send yet (consent): throws an HttpError. */
  checkSend?(message: Message): Promise<void>;
  /** Why the edge refused the call (RestCall.failure: a body not sent as JSON), answered first. */
  failure?: unknown;
}

function parse<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidParams(result.error, prefix);
  return result.data;
}

/** Answers one REST call. */
export async function handleRest(
  c: Context,
  route: RestRoute,
  options: RestOptions,
): Promise<Response> {
  const v03 = route.version === "0.3";
  const contentType = v03 ? "application/json" : answerMediaType(c.req.raw.headers);
  const respond = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": contentType } });
  const encodeTask = (task: Task) => (v03 ? taskToV03(task) : task);
  try {
    if (options.failure) throw options.failure;
    if (options.version !== route.version) {
      throw new VersionNotSupportedError(
        `${unsupportedVersionMessage(options.version)} These are the A2A ${route.version} HTTP+JSON paths${v03 ? "" : "; send A2A-Version: 1.0"}.`,
      );
    }
    switch (route.op) {
      case "send": {
        const raw = await readJsonBody(c);
        const params = parse(SendMessageParams, v03 ? sendRequestFromV03(raw) : raw, "body");
        await options.checkSend?.(params.message);
        const ctx = await options.context();
        if (route.stream) return await stream(c, route, runStream(ctx, "stream", params), options);
        const result = (await runUnary(ctx, "send", params, route.version)) as SendResult;
        if ("message" in result)
          return respond({ message: v03 ? messageToV03(result.message) : result.message });
        return respond({ task: encodeTask(result.task) });
      }
      case "get": {
        const params = parse(GetTaskParams, { ...c.req.query(), id: route.id }, "query");
        const ctx = await options.context();
        return respond(encodeTask((await runUnary(ctx, "get", params, route.version)) as Task));
      }
      case "list": {
        const params = parse(ListTasksParams, c.req.query(), "query");
        const ctx = await options.context();
        return respond((await runUnary(ctx, "list", params, route.version)) as ListTasksPage);
      }
      case "cancel": {
        const ctx = await options.context();
        const task = (await runUnary(ctx, "cancel", { id: route.id }, route.version)) as Task;
        return respond(encodeTask(task));
      }
      case "subscribe": {
        const ctx = await options.context();
        return await stream(c, route, runStream(ctx, "subscribe", { id: route.id }), options);
      }
      case "push":
        return await restPush(c, route, await options.context(), respond);
      case "extendedCard":
        return respond(await runUnary(await options.context(), "extendedCard", {}, "1.0"));
    }
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    const { status, body } = restFailure(error, route.version, options.onInternalError);
    return respond(body, status);
  }
}

async function stream(
  c: Context,
  route: RestRoute,
  source: AsyncGenerator<GatewayEvent, void>,
  options: RestOptions,
): Promise<Response> {
  const item = ({ seq, event }: GatewayEvent): SseItem => ({
    id: seq,
    data: JSON.stringify(route.version === "0.3" ? eventToV03(event) : event),
  });
  // Nothing at all: a reconnect after the last event of an ended task closes at once.
  return sourceSse(
    c,
    source,
    item,
    bindingSse(
      options,
      (error) => JSON.stringify(restFailure(error, route.version, options.onInternalError).body),
      { error: { code: 401, status: "UNAUTHENTICATED", message: REVOKED_MESSAGE } },
    ),
  );
}
