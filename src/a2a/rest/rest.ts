/**
 * The HTTP+JSON (REST) binding of an agent, v1.0 paths and v0.3 `v1/` paths, running the method
 * the path names in the one method table (methods.ts) as JSON-RPC does, each version in its
 * dialect: the params come from the path's variables and the query string or the body (read and
 * parsed once: rest-body.ts) and are validated once. Answers are `application/a2a+json` to
 * clients that ask for it, else `application/json` (edge/media-types.ts; v0.3:
 * `application/json`), with the route's status (201 made, 204 gone); errors use the spec's HTTP
 * statuses with a google.rpc.Status body (v0.3: `{ code, message }`), from the one error table
 * (edge/errors.ts); streams are SSE whose `data` is the bare StreamResponse and whose `id` is the
 * task event's sequence number. HttpErrors (consent) pass through to the Worker's onError.
 */
import { VersionNotSupportedError } from "@a2a-js/sdk/errors";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { restFailure } from "../../edge/errors.ts";
import { answerMediaType } from "../../edge/media-types.ts";
import {
  type BindingStream,
  bindingSse,
  REVOKED_MESSAGE,
  type SseItem,
  sourceSse,
} from "../../edge/sse.ts";
import type { RestRoute } from "../../protocol/app-types.ts";
import { isJsonObject } from "../../protocol/json-shape.ts";
import type { Message } from "../../protocol/wire.ts";
import type { CallContext } from "../call-context.ts";
import type { AnsweredEvent, HttpRoute } from "../method-entry.ts";
import { unsupportedVersionMessage } from "../version.ts";
import { readJsonBody } from "./rest-body.ts";
import { httpRouteOf } from "./rest-paths.ts";

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

/** The call's params before validation: its source's fields, then the path's variables. */
async function paramsOf(c: Context, http: HttpRoute, vars: Record<string, string>) {
  const raw =
    http.from === "body" ? await readJsonBody(c) : http.from === "query" ? c.req.query() : {};
  const input = http.decode ? http.decode(raw) : raw;
  if (Object.keys(vars).length === 0 || !isJsonObject(input)) return input;
  return { ...input, ...vars };
}

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
    if (options.failure) throw options.failure;
    if (options.version !== route.version) {
      const hint = route.version === "0.3" ? "" : "; send A2A-Version: 1.0";
      throw new VersionNotSupportedError(
        `${unsupportedVersionMessage(options.version)} These are the A2A ${route.version} HTTP+JSON paths${hint}.`,
      );
    }
    const http = httpRouteOf(route);
    const call = http.method.prepare(await paramsOf(c, http, route.vars), http.from);
    if (call.message) await options.checkSend?.(call.message);
    const ctx = await options.context();
    if (call.streaming) return await stream(c, route, call.run(ctx), options);
    const answer = await call.run(ctx);
    return http.status === 204 ? new Response(null, { status: 204 }) : respond(answer, http.status);
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    const { status, body } = restFailure(error, route.version, options.onInternalError);
    return respond(body, status);
  }
}

function stream(
  c: Context,
  route: RestRoute,
  source: AsyncGenerator<AnsweredEvent, void>,
  options: RestOptions,
): Promise<Response> {
  const item = ({ seq, answer }: AnsweredEvent): SseItem => ({
    id: seq,
    data: JSON.stringify(answer),
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
