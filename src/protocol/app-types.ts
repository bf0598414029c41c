/**
 * The Hono environment every route shares: the Worker's bindings and the per-request variables
 * (who is calling, and the fields the request's log line reports). Types only.
 */
import type { DelegatedCaller } from "./delegated-caller.ts";

/** A role. Admins reach the admin API and everyone's data. */
export type Role = "user" | "admin";

/** The caller of a request (see auth/principal.ts for how one is found). */
/** Per-user budget overrides (tokens; 0 = unlimited); unset fields use the BUDGET_* vars. */
export interface UserBudget {
  taskTokens?: number;
  dayTokens?: number;
  monthTokens?: number;
}

/**
 * A budget reservation a task object made for its next model call when it took a message
 * (users/budget-grant.ts): the reservation's key and tokens, the user object holding it, and until
 * when (ms since the epoch) a call may take it as it is, without reserving again.
 */
export interface BudgetGrant {
  key: string;
  tokens: number;
  counters: string;
  trustedUntil: number;
}

export interface Principal {
  id: string;
  role: Role;
  /** Agents this principal may call; null = every agent. */
  agents: string[] | null;
  /** How it authenticated. */
  via: "token" | "jwt" | "key" | "anonymous" | "delegation";
  /** For token callers, the token's hash (to re-check revocation during a stream). */
  tokenHash?: string;
  /**
   * A user's budget overrides as found with the credential (cached like it); absent for the
   * static keys and anonymous callers, who have no user row.
   */
  budget?: UserBudget | null;
  /**
   * The privacy policy version the user consented to and when, as found with the credential
   * (null: none; absent for the static keys and anonymous callers).
   */
  consent?: Consent | null;
  /** For a delegation token's caller: user U via agent A from issuer I (auth/delegated.ts). */
  delegation?: DelegatedCaller;
}

/** A user's consent to a version of the privacy policy (privacy/policy.ts). */
export interface Consent {
  version: string;
  at: string;
}

/** `{ budget }` when `from` knows the budget overrides, else nothing (for spreading into inputs). */
export function budgetOf(from: { budget?: UserBudget | null }): { budget?: UserBudget | null } {
  return from.budget === undefined ? {} : { budget: from.budget };
}

/**
 * A JSON-RPC request as the edge read it, once (a2a/jsonrpc/rpc-call.ts), before the rate limits: the
 * limits, consent, the log line and the binding all read this, never the body again.
 */
export interface RpcCall {
  /** The request's id (null until one could be read). */
  id: string | number | null;
  /** The protocol version it is read in: "1.0", "0.3" (or the unsupported one it asked for). */
  version: string;
  /** The method, when the body is a JSON-RPC request. */
  method: string | null;
  /** The raw params (validated by the binding against the method's schema). */
  params: Record<string, unknown> | undefined;
  /** The method sends a message (rate limit, consent). */
  sends: boolean;
  /** The method answers with a stream (stream lease). */
  streams: boolean;
  /** Why it cannot be served: answered by the binding after the route's own checks. */
  failure: { error: unknown; status: 200 | 415 } | null;
}

/**
 * The method an HTTP+JSON path names in the method table (a2a/methods.ts; a2a/rest/rest-paths.ts
 * parses it): the protocol generation of its path, the method's name, and the path's variables
 * (decoded), each a field of the method's params.
 */
export interface RestRoute {
  version: "1.0" | "0.3";
  name: string;
  vars: Record<string, string>;
}

/**
 * An HTTP+JSON (REST) request as the edge read it, once (a2a/rest/rest-call.ts), before the rate
 * limits: the operation its path names as the router decoded it, never the raw URL path. The
 * limits, the log line and the binding read this.
 */
export interface RestCall {
  /** The operation; null when the path names none for this HTTP method (the binding's 404). */
  route: RestRoute | null;
  /** What the log line names: `POST send` (null with no operation). */
  method: string | null;
  /** It sends a message (rate limit, consent). */
  sends: boolean;
  /** It answers with a stream (stream lease). */
  streams: boolean;
  /** Why it cannot be served (a body sent as anything but JSON): thrown by the binding. */
  failure: unknown;
}

/**
 * An MCP or AG-UI request as the edge read it, once (edge/face-call.ts), before the rate limits:
 * the limits, the log line and the face's route read this, never the body again.
 */
export interface FaceCall {
  /** The body as JSON; undefined when it is not JSON (the route answers that). */
  body: unknown;
  /** What the log line names: `mcp tools/call send_message`, `ag-ui run`. */
  method: string;
  /** It sends a message (rate limit). */
  sends: boolean;
  /** It holds its response open while a task works (stream lease). */
  streams: boolean;
  /**
   * Why the body cannot be served though it may be JSON (sent as another media type: 415; nested
   * too deep: 400), for the face to answer in its own shape after its own checks (the agent).
   * Such a call neither sends nor streams.
   */
  refusal: { status: 400 | 415; message: string } | null;
}

/** Request-scoped values the log line reports (platform/logging.ts). */
export interface LogVariables {
  requestId: string;
  traceId: string;
  /** The caller's span and `tracestate`, when the request carried a valid `traceparent`. */
  traceParent?: { parentSpanId: string; traceState?: string };
  agent?: string;
  /** The call the edge read: JSON-RPC, HTTP+JSON, or MCP and AG-UI (one of them, if any). */
  rpcCall?: RpcCall;
  restCall?: RestCall;
  faceCall?: FaceCall;
  /** The authenticated caller (never a credential). */
  userId?: string;
  /** The task the request addressed, when known. */
  taskId?: string;
  /** For a delegated caller: "user U via agent A from issuer I" (traces record the chain). */
  delegatedBy?: string;
}

export type AppEnv = {
  Bindings: Env;
  Variables: LogVariables & {
    owner: string;
    principal: Principal;
    /** Re-checks the request's credentials (open streams call it every few seconds). */
    authCheck: () => Promise<boolean>;
  };
};
