/**
 * The HTTP+JSON push notification config operations (spec 1.0 §11.3: `/tasks/{id}/
 * pushNotificationConfigs[/{configId}]`; v0.3 the same under `v1/`). v1.0 bodies are the flat
 * `TaskPushNotificationConfig`; v0.3 bodies carry `pushNotificationConfig` (alone, or inside
 * `config`) with `authentication.schemes`, and answers name the config as
 * `tasks/{id}/pushNotificationConfigs/{configId}`, as the SDK's v0.3 client expects.
 */
import { TaskPushNotificationConfig } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Context } from "hono";
import type { DurableRequestHandler } from "./request-handler.ts";
import { readJsonBody } from "./rest-body.ts";
import type { RestRoute } from "./rest-paths.ts";

type Json = Record<string, unknown>;
type PushRoute = Extract<RestRoute, { op: "push" }>;

const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined;

/** A v0.3 REST body as a v1.0 config object. */
function fromV03(body: Json): Json {
  const inner =
    obj(body.pushNotificationConfig) ??
    obj(obj(body.config)?.pushNotificationConfig) ??
    obj(body.config) ??
    body;
  const auth = obj(inner.authentication);
  const schemes = Array.isArray(auth?.schemes) ? auth.schemes : [];
  return {
    ...(inner.id !== undefined ? { id: inner.id } : {}),
    ...(typeof body.configId === "string" ? { id: body.configId } : {}),
    url: inner.url,
    ...(inner.token !== undefined ? { token: inner.token } : {}),
    ...(auth
      ? {
          authentication: {
            scheme: schemes[0] ?? auth.scheme,
            ...(auth.credentials !== undefined ? { credentials: auth.credentials } : {}),
          },
        }
      : {}),
  };
}

/** A v1.0 config in the v0.3 REST answer shape. */
function toV03(config: TaskPushNotificationConfig): Json {
  const wire = TaskPushNotificationConfig.toJSON(config) as Json;
  const auth = obj(wire.authentication);
  return {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${config.id}`,
    pushNotificationConfig: {
      id: wire.id,
      url: wire.url,
      ...(wire.token !== undefined ? { token: wire.token } : {}),
      ...(auth
        ? {
            authentication: {
              schemes: [auth.scheme],
              ...(auth.credentials !== undefined ? { credentials: auth.credentials } : {}),
            },
          }
        : {}),
    },
  };
}

/** Runs one push config operation. */
export async function restPush(
  c: Context,
  route: PushRoute,
  handler: DurableRequestHandler,
  respond: (body: unknown, status?: number) => Response,
): Promise<Response> {
  const encode = (config: TaskPushNotificationConfig) =>
    route.version === "0.3" ? toV03(config) : TaskPushNotificationConfig.toJSON(config);
  switch (route.action) {
    case "create": {
      const body = obj(await readJsonBody(c));
      if (!body) throw new RequestMalformedError("the body must be a JSON object");
      const wire = route.version === "0.3" ? fromV03(body) : body;
      const config = TaskPushNotificationConfig.fromJSON({ ...wire, taskId: route.id });
      return respond(encode(await handler.createTaskPushNotificationConfig(config)), 201);
    }
    case "get":
      return respond(
        encode(
          await handler.getTaskPushNotificationConfig({
            tenant: "",
            taskId: route.id,
            id: route.configId ?? "",
          }),
        ),
      );
    case "list": {
      const page = await handler.listTaskPushNotificationConfigs({
        tenant: "",
        taskId: route.id,
        pageSize: 0,
        pageToken: "",
      });
      return respond({ configs: page.configs.map(encode), nextPageToken: "" });
    }
    case "delete":
      await handler.deleteTaskPushNotificationConfig({
        tenant: "",
        taskId: route.id,
        id: route.configId ?? "",
      });
      return new Response(null, { status: 204 });
  }
}
