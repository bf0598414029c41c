/**
 * The A2A surface of every agent, pinned:
 *   GET  /agents                                        the agents with their card URLs
 *   GET  /.well-known/agent-card.json, POST /           the default agent (DEFAULT_AGENT)
 *   GET  /agents/<name>/.well-known/agent-card.json     an agent's card
 *   GET  [/agents/<name>]/.well-known/agent.json        the v0.3 card at the v0.2 discovery path
 *   GET  /.well-known/jwks.json                         the public key of the cards' signatures
 *   POST /agents/<name>/ (or without the slash)         its JSON-RPC endpoint (v1.0 and v0.3)
 *   *    /agents/<name>/{message:send,tasks/...,v1/...}  its HTTP+JSON endpoints (also under /)
 *   GET  /agents/<name>                                 308 to the canonical URL with the slash
 */

import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import type { AgentDefinition } from "../agents/identity.ts";
import { agentRoster } from "../agents/roster.ts";
import { JWKS_PATH } from "../auth/card-signature.ts";
import { authenticate } from "../auth/middleware.ts";
import { loadConfig } from "../config/config.ts";
import { baseUrl } from "../config/public-url.ts";
import {
  agentEndpoint,
  agentNamed,
  checkAccess,
  defaultAgent,
  internalErrorLogger,
} from "../edge/agent-request.ts";
import { INVALID_REQUEST } from "../edge/errors.ts";
import { edgeCall } from "../edge/face-call.ts";
import { bodyLimit } from "../platform/body-limit.ts";
import { HttpError } from "../platform/http-error.ts";
import { ledgerMark, ledgerOn } from "../platform/ledger.ts";
import { checkMessageConsent } from "../privacy/consent.ts";
import type { AppEnv } from "../protocol/app-types.ts";
import { limitRequests } from "../users/rate-limit.ts";
import { callContext } from "./call-context.ts";
import { serveCard, serveJwks } from "./cards/card-route.ts";
import { refuseAnonymousExtendedCard } from "./cards/extended-card.ts";
import { echoExtensions } from "./extension-activation.ts";
import { handleJsonRpc } from "./jsonrpc/jsonrpc.ts";
import { rpcCall } from "./jsonrpc/rpc-call.ts";
import { rpcMethod } from "./methods.ts";
import { handleRest } from "./rest/rest.ts";
import { restCall } from "./rest/rest-call.ts";
import { httpRouteOf, REST_PATH_PATTERN } from "./rest/rest-paths.ts";
import { requestedVersion } from "./version.ts";

const REST_METHODS = ["GET", "POST", "DELETE"];

/** The agent a route serves, and its endpoint. */
interface Target {
  agent: AgentDefinition;
  endpoint: string;
}

/**
 * The agent a route serves: the one `/agents/:name/...` names, else (the root URLs, its aliases)
 * the default agent; a 404 or 503 when there is none to serve (edge/agent-request.ts).
 */
function target(c: Context<AppEnv>): Target {
  const name = c.req.param("name");
  if (name === undefined) return { agent: defaultAgent(c), endpoint: `${baseUrl(c)}/` };
  const agent = agentNamed(c, name);
  return { agent, endpoint: agentEndpoint(c, agent.name) };
}

/** The agent's card (`version`: the v0.3 card at the v0.2 discovery path). */
const card = (version?: "0.3") => (c: Context<AppEnv>) => {
  const { agent, endpoint } = target(c);
  return serveCard(c, agent, endpoint, version);
};

async function serveRpc(c: Context<AppEnv>): Promise<Response> {
  const { agent, endpoint } = target(c);
  c.set("agent", agent.name);
  checkAccess(c, agent);
  const call = edgeCall(c, "rpcCall");
  const protocol = call.version === "0.3" ? "0.3" : "1.0";
  if (rpcMethod(protocol, call.method ?? "")?.refusesAnonymous)
    refuseAnonymousExtendedCard(c, agent);
  if (call.sends && !call.failure) await checkMessageConsent(c, call.params?.message);
  return handleJsonRpc(c, call, {
    context: async () => callContext(c, agent, endpoint, protocol),
    keepaliveMs: loadConfig(c.env).sseKeepaliveMs,
    onInternalError: internalErrorLogger(c),
    stillAuthorized: c.get("authCheck"),
  });
}

async function serveRest(c: Context<AppEnv>): Promise<Response> {
  const { agent, endpoint } = target(c);
  const { route, failure } = edgeCall(c, "restCall");
  if (!route)
    throw new HttpError(
      404,
      `No HTTP+JSON operation ${c.req.method} ${(c.req.param("rest") ?? "").slice(0, 200)}`,
      { details: true },
    );
  c.set("agent", agent.name);
  checkAccess(c, agent);
  if (httpRouteOf(route).method.refusesAnonymous) refuseAnonymousExtendedCard(c, agent);
  return handleRest(c, route, {
    context: async () => callContext(c, agent, endpoint, route.version),
    checkSend: (message) => checkMessageConsent(c, message),
    version: requestedVersion(c.req.raw),
    keepaliveMs: loadConfig(c.env).sseKeepaliveMs,
    onInternalError: internalErrorLogger(c),
    stillAuthorized: c.get("authCheck"),
    failure,
  });
}

/** What the service is: its default agent and where to start (`GET /`); a browser (its Accept
 * leads with HTML) is sent to the console. */
function service(c: Context<AppEnv>): Response {
  const base = baseUrl(c);
  if (/^\s*text\/html/i.test(c.req.header("Accept") ?? ""))
    return c.redirect(`${base}/console`, 303);
  return c.json({
    service: "a2a-edge-harness",
    defaultAgent: loadConfig(c.env).defaultAgent,
    agentCard: `${base}/.well-known/agent-card.json`,
    agents: `${base}/agents`,
    console: `${base}/console`,
    endpoint: `POST ${base}/ (JSON-RPC 2.0, header A2A-Version: 1.0)`,
  });
}

/** An agent's endpoint and card URL (`GET /agents/<name>/`). */
function agentIndex(c: Context<AppEnv>): Response {
  const { agent, endpoint } = target(c);
  return c.json({
    name: agent.name,
    description: agent.description,
    endpoint,
    cardUrl: `${endpoint}.well-known/agent-card.json`,
  });
}

/** A 308 to the agent's canonical URL, with the slash. */
function withSlash(c: Context<AppEnv>): Response {
  const url = new URL(c.req.url);
  url.pathname = `${url.pathname}/`;
  return c.redirect(url.toString(), 308);
}

/** The critical-path ledger's mark (STORAGE_METER): the client's wait for an answer ends here. */
const markResponse: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (ledgerOn())
    ledgerMark(`response ${c.get("rpcCall")?.method ?? c.get("restCall")?.method ?? c.req.method}`);
};

/** Routes of the A2A surface (the table in the header). */
export function a2aRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  /** MAX_BODY_BYTES, answered as a JSON-RPC error with HTTP 413. */
  const sizeLimit = bodyLimit({
    lead: "Request payload validation error: ",
    answer: { rpcCode: INVALID_REQUEST, details: true },
  });
  const rest = `:rest{${REST_PATH_PATTERN}}`;
  app.use(markResponse);
  app.use(echoExtensions());
  app.get("/", service);
  app.get("/agents/", (c) => c.redirect(`${baseUrl(c)}/agents`, 308));
  app.get("/agents", (c) => c.json(agentRoster(c.env, baseUrl(c))));
  app.on(
    REST_METHODS,
    `/${rest}`,
    authenticate(),
    sizeLimit,
    restCall(),
    limitRequests(),
    serveRest,
  );
  app.get("/.well-known/agent-card.json", card());
  app.get(JWKS_PATH, serveJwks);
  // The v0.2 discovery path, which v0.2 clients still ask for: the v0.3 card.
  app.get("/.well-known/agent.json", card("0.3"));
  app.post("/", authenticate(), sizeLimit, rpcCall(), limitRequests(), serveRpc);
  app.get("/agents/:name/.well-known/agent-card.json", card());
  app.get("/agents/:name/.well-known/agent.json", card("0.3"));
  // JSON-RPC at the canonical URL and without its slash: a client does not re-send a body after
  // a redirect, so the short form is served, not redirected.
  app.post("/agents/:name/", authenticate(), sizeLimit, rpcCall(), limitRequests(), serveRpc);
  app.post("/agents/:name", authenticate(), sizeLimit, rpcCall(), limitRequests(), serveRpc);
  const agentRest = `/agents/:name/${rest}`;
  app.on(
    REST_METHODS,
    agentRest,
    authenticate(),
    sizeLimit,
    restCall(),
    limitRequests(),
    serveRest,
  );
  app.get("/agents/:name/", agentIndex);
  app.all("/agents/:name", withSlash);
  return app;
}
