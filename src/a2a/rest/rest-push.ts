/**
 * The HTTP+JSON push notification config operations (spec 1.0 §11.3: `/tasks/{id}/
 * pushNotificationConfigs[/{configId}]`; v0.3 the same under `v1/`). v1.0 bodies are the flat
 * `TaskPushNotificationConfig` (fields also under their proto names); v0.3 bodies carry
 * `pushNotificationConfig` (alone, or inside `config`) with `authentication.schemes`, and answers
 * name the config as `tasks/{id}/pushNotificationConfigs/{configId}`, as the SDK's v0.3 client
 * expects. The operations are the gateway's (operations.ts).
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Context } from "hono";
import { invalidParams } from "../../edge/errors.ts";
import type { RestRoute } from "../../protocol/app-types.ts";
import { isJsonObject, type JsonObject as Json } from "../../protocol/json-shape.ts";
import { PushConfigParams } from "../../protocol/params.ts";
import { pushConfigFromV03Proto, pushConfigToV03Proto } from "../../protocol/v03/http-json.ts";
import type { WirePushConfig } from "../../protocol/wire.ts";
import type { CallContext } from "../call-context.ts";
import { runUnary } from "../operations.ts";
import { readJsonBody } from "./rest-body.ts";

type PushRoute = Extract<RestRoute, { op: "push" }>;

const obj = (v: unknown): Json | undefined => (isJsonObject(v) ? v : undefined);
const fromV03 = pushConfigFromV03Proto;
const toV03 = pushConfigToV03Proto;

/** Runs one push config operation. */
export async function restPush(
  c: Context,
  route: PushRoute,
  ctx: CallContext,
  respond: (body: unknown, status?: number) => Response,
): Promise<Response> {
  const { version } = route;
  const encode = (config: WirePushConfig) => (version === "0.3" ? toV03(config) : config);
  const ids = { taskId: route.id, id: route.configId ?? "" };
  switch (route.action) {
    case "create": {
      const body = obj(await readJsonBody(c));
      if (!body) throw new RequestMalformedError("the body must be a JSON object");
      const parsed = PushConfigParams.safeParse(version === "0.3" ? fromV03(body) : body);
      if (!parsed.success) throw invalidParams(parsed.error, "body");
      const params = { ...parsed.data, taskId: route.id };
      const config = (await runUnary(ctx, "setPushConfig", params, version)) as WirePushConfig;
      return respond(encode(config), 201);
    }
    case "get":
      return respond(
        encode((await runUnary(ctx, "getPushConfig", ids, version)) as WirePushConfig),
      );
    case "list": {
      const list = (await runUnary(ctx, "listPushConfigs", ids, version)) as WirePushConfig[];
      return respond({ configs: list.map(encode), nextPageToken: "" });
    }
    case "delete":
      await runUnary(ctx, "deletePushConfig", ids, version);
      return new Response(null, { status: 204 });
  }
}
