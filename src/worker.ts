/**
 * The Worker: routes requests to the A2A surface and health check, turns anything thrown into a
 * JSON error (never an HTML page), and exports the Durable Object classes (the task object's with
 * the task gateway's transport to local sub-agents).
 */
import { Hono } from "hono";
import { a2aRoutes } from "./a2a/routes.ts";
import { agUiRoutes } from "./ag-ui/routes.ts";
import { refreshAgents } from "./agents/overrides.ts";
import { adminRoutes, DOCUMENT_ROUTES } from "./api/admin-routes.ts";
import { deepHealth } from "./api/health.ts";
import { knowledgeAdminRoutes } from "./api/knowledge-routes.ts";
import { policyRoutes } from "./api/policy-routes.ts";
import { privacyRoutes } from "./api/privacy-routes.ts";
import { promptRoutes } from "./api/prompt-routes.ts";
import { sessionCreateRoutes } from "./api/session-create.ts";
import { sessionsRoutes } from "./api/sessions-routes.ts";
import { skillsRoutes } from "./api/skills-routes.ts";
import { taskRecordRoutes } from "./api/task-record-routes.ts";
import { traceRoutes } from "./api/trace-routes.ts";
import { usageRoutes } from "./api/usage-routes.ts";
import { workspaceFilesRoutes } from "./api/workspace-files-routes.ts";
import { workspaceStateRoutes } from "./api/workspace-state-routes.ts";
import { authenticate, requireAdmin } from "./auth/middleware.ts";
import { loadConfig } from "./config/config.ts";
import { consoleRoutes } from "./console/routes.ts";
import { eventRoutes } from "./events/agent-events.ts";
import { localChildren } from "./gateway/local-children.ts";
import { mcpRoutes } from "./mcp-server/routes.ts";
import { platformEnv } from "./platform/bindings.ts";
import { jsonBodyOnly } from "./platform/content-type.ts";
import { corsFromConfig } from "./platform/cors.ts";
import { HttpError, httpErrorResponse } from "./platform/http-error.ts";
import { guardedEntry } from "./platform/limit-guard.ts";
import { errorFields, log, requestLogger } from "./platform/logging.ts";
import { WORKSPACE_FILE_ROUTE } from "./platform/route-match.ts";
import type { AppEnv } from "./protocol/app-types.ts";
import { TaskObject as TaskObjectOfTask } from "./task/task-object.ts";
import { cronRoutes, runCron } from "./triggers/cron.ts";
import { scheduleRoutes } from "./triggers/schedule-routes.ts";
import { webhookRoutes } from "./triggers/webhook-routes.ts";
import { lazy } from "./utils/lazy.ts";

export { ContextObject } from "./conversations/context-object.ts";
export { EventHub } from "./events/event-hub.ts";
export { RetentionObject } from "./privacy/retention-object.ts";
export { UserObject } from "./users/user-object.ts";
export { WorkspaceObject } from "./workspace/workspace-object.ts";

/**
 * The task Durable Object as the Worker runs it: its local sub-agents go through the task gateway
 * like every other caller's tasks (gateway/local-children.ts), handed down from here since the
 * gateway stands above the task objects.
 */
export class TaskObject extends TaskObjectOfTask {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, localChildren);
  }
}

/**
 * The Worker's routes, built at the isolate's first request rather than at its start: an isolate
 * that serves only Durable Objects never builds them.
 */
const app = lazy(() => {
  const routes = new Hono<AppEnv>();
  routes.use(requestLogger());
  routes.use(corsFromConfig());
  // Runtime agent uploads: reload the registry when they changed (checked every 30 s at most,
  // beside the request once the isolate has a registry).
  routes.use(async (c, next) => {
    await refreshAgents(c.env, (work) => c.executionCtx.waitUntil(work));
    await next();
  });
  // The REST API takes JSON only (cross-site requests: platform/content-type.ts); the faces check
  // their own bodies, each in its own error shape. Documents and workspace files are PUT as they
  // are (a cross-site PUT needs a preflight, which CORS answers).
  routes.use("/api/*", jsonBodyOnly([...DOCUMENT_ROUTES, WORKSPACE_FILE_ROUTE]));
  routes.get("/health", (c) => c.json({ ok: true }));
  routes.get("/health/deep", authenticate(), requireAdmin(), deepHealth);
  routes.route("/", consoleRoutes());
  routes.route("/", knowledgeAdminRoutes());
  routes.route("/", adminRoutes());
  routes.route("/", cronRoutes());
  routes.route("/", usageRoutes());
  routes.route("/", eventRoutes());
  routes.route("/", sessionCreateRoutes());
  routes.route("/", sessionsRoutes());
  routes.route("/", policyRoutes());
  routes.route("/", privacyRoutes());
  routes.route("/", taskRecordRoutes());
  routes.route("/", traceRoutes());
  routes.route("/", promptRoutes());
  routes.route("/", skillsRoutes());
  routes.route("/", workspaceFilesRoutes());
  routes.route("/", workspaceStateRoutes());
  routes.route("/", scheduleRoutes());
  routes.route("/", webhookRoutes());
  routes.route("/", mcpRoutes());
  routes.route("/", agUiRoutes());
  routes.route("/", a2aRoutes());
  routes.notFound((c) =>
    httpErrorResponse(
      c,
      new HttpError(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}`),
    ),
  );
  routes.onError((error, c) => {
    if (!(error instanceof HttpError))
      log("error", "unhandled error", { traceId: c.get("traceId"), ...errorFields(error) });
    return httpErrorResponse(c, error);
  });
  return routes;
});

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) =>
    guardedEntry(env, "fetch", () => app().fetch(request, platformEnv(env), ctx)),
  // wrangler.toml [triggers]: every minute for SCHEDULES, daily for the retention sweep.
  // (POST /api/admin/cron runs the same on demand.) With CRON_TRIGGERS=false (npm run dev) events
  // are ignored: wrangler dev fires them from /cdn-cgi/local/scheduled, which asks no credentials.
  scheduled: (controller, rawEnv, ctx) =>
    guardedEntry(rawEnv, "scheduled", async () => {
      const env = platformEnv(rawEnv);
      if (!loadConfig(env).cronTriggers) {
        log("info", "cron event ignored (CRON_TRIGGERS=false)", { cron: controller.cron });
        return;
      }
      ctx.waitUntil(runCron(env, controller.cron, controller.scheduledTime).then(() => undefined));
    }),
} satisfies ExportedHandler<Env>;
