/**
 * Runtime configuration: every wrangler var and secret the harness reads, parsed once with zod,
 * with the defaults documented in docs/configuration.md. Pure: no I/O.
 */

import type { z } from "zod";
import { type AgentNetwork, parseAgentNetwork } from "./agent-network.ts";
import { configSchema } from "./env-schema.ts";
import { type TraceConfig, traceConfig } from "./trace-config.ts";

/** How the model is reached: Claude through the API, or the scripted local model (no key). */
export type ModelMode = "anthropic" | "scripted" | "unconfigured";

/** The parsed configuration. */
export interface Config {
  defaultAgent: string;
  /** The model of agents whose IDENTITY.md names none (`DEFAULT_MODEL`). */
  defaultModel: string;
  publicUrl: string | undefined;
  anthropicBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  modelMode: ModelMode;
  a2aApiKey: string | undefined;
  maxBodyBytes: number;
  maxTurns: number;
  /** Wall-clock seconds a task may work (`MAX_TASK_SECONDS`; 0 = no limit). */
  maxTaskSeconds: number;
  /** Tool calls of one model turn that run (`MAX_TOOL_CALLS_PER_TURN`). */
  maxToolCallsPerTurn: number;
  modelIdleTimeoutMs: number;
  modelMaxRetries: number;
  modelRetryBaseMs: number;
  sseKeepaliveMs: number;
  /** MCP_WAIT_SECONDS: the longest an MCP tool call waits for a task before answering. */
  mcpWaitSeconds: number;
  /** LONG_POLL_SECONDS: the longest GetTask's `currentGeneration` holds (1 to 25). */
  longPollSeconds: number;
  cardMaxAgeSeconds: number;
  /** The secret AGENT_CARD_SIGNING_KEY: a private JWK that signs the cards, if set. */
  cardSigningKey: string | undefined;
  adminApiKey: string | undefined;
  /** Tool domains or tool names switched on (`TOOLS_ENABLED`); null = all. */
  toolsEnabled: string[] | null;
  webFetchAllowPrivate: boolean;
  /** Trace context sent to web_fetch targets, OTLP export, content in spans (docs/traces.md). */
  trace: TraceConfig;
  /** Push notification delivery: attempts per notification, first backoff, timeout of one POST. */
  pushMaxAttempts: number;
  pushRetryBaseMs: number;
  pushTimeoutMs: number;
  /** Push notification configs one task may hold (MAX_PUSH_CONFIGS_PER_TASK). */
  maxPushConfigsPerTask: number;
  /** run_code's limits (docs/harness.md: Code execution). */
  runCode: {
    cpuMs: number;
    timeoutMs: number;
    maxOutputChars: number;
    maxModules: number;
    maxBytes: number;
    maxIterations: number;
  };
  /**
   * The session start's regression run: at most `maxFiles` test files recorded as passing are
   * run again, within `timeoutMs` (0 files: no regression run).
   */
  regression: { maxFiles: number; timeoutMs: number };
  /** How far a generic webhook's X-Timestamp may be from now. */
  webhookReplayWindowSeconds: number;
  verifyBeforeComplete: boolean;
  loopDetectionThreshold: number;
  compactOutputLines: number;
  /**
   * Per-task call caps by tool (`TOOL_CALL_CAPS`; `SEARCH_MAX_CALLS` and
   * `FETCH_DOCUMENT_MAX_CALLS`, when set, replace its `search` and `fetch_document` entries).
   */
  toolCallCaps: Record<string, number>;
  /** The most results one `search` call returns (`SEARCH_MAX_RESULTS`). */
  searchMaxResults: number;
  maxToolOutputChars: number;
  logToolUse: boolean;
  contextTokenBudget: number;
  rollbackOnFailure: boolean;
  /** IANA time zone for the date and time in the system prompt. */
  timeZone: string;
  /** Remote A2A agents, distribution, switched-off agents and call rules. */
  network: AgentNetwork;
  /** Whether requests without credentials are served (as `anonymous`). */
  allowAnonymous: boolean;
  /** Days an ended task is kept before it erases itself (0 = forever). */
  retentionDays: number;
  /**
   * Days an anonymous conversation's ended task is kept (0 = as `retentionDays`); the lower of the
   * two applies. The conversation's files go with its last task.
   */
  anonymousRetentionDays: number;
  /**
   * The privacy policy (`PRIVACY_POLICY_URL`, `_TEXT`, `_VERSION`; none set: the default derived
   * from what is stored, see privacy/policy.ts) and whether a user's consent to it is required
   * before their tasks (`REQUIRE_CONSENT`).
   */
  privacy: {
    policyUrl: string | undefined;
    policyText: string | undefined;
    policyVersion: string | undefined;
    requireConsent: boolean;
  };
  /** Whether cron trigger events run (`CRON_TRIGGERS`; `npm run dev` turns them off). */
  cronTriggers: boolean;
  /** Origins browser clients may call from (`CORS_ORIGINS`; `*` = any); empty = no CORS. */
  corsOrigins: string[];
  /**
   * Messages per minute per user, per IP for unauthenticated callers, open streams, and failed
   * credentials per minute per client address (0 = off).
   */
  limits: {
    messagesPerMinute: number;
    anonymousPerMinute: number;
    concurrentStreams: number;
    authFailuresPerMinute: number;
    /** How long an isolate admits from a lease of places and a spare stream slot (ms). */
    admissionLeaseMs: number;
  };
  /**
   * Default token budgets per task, day and month (0 = unlimited); users may have overrides.
   * `issuer`: what all the callers one trusted issuer delegates spend together, per day and month.
   */
  budgets: {
    taskTokens: number;
    dayTokens: number;
    monthTokens: number;
    issuer: { dayTokens: number; monthTokens: number };
  };
  /** JWT verification (OIDC issuer or Cloudflare Access), when configured. */
  oidc: { issuer: string; audience: string; jwksUrl?: string; jwks?: unknown } | null;
  /** Delegation tokens: issuers trusted here (URL -> JWKS URL) and the minutes a minted one lives. */
  delegation: { trustedIssuers: Record<string, string>; tokenMinutes: number };
}

function oidcConfig(v: {
  OIDC_ISSUER?: string | undefined;
  OIDC_AUDIENCE?: string | undefined;
  OIDC_JWKS_URL?: string | undefined;
  OIDC_JWKS?: string | undefined;
}): Config["oidc"] {
  if (!v.OIDC_ISSUER) return null;
  if (!v.OIDC_AUDIENCE)
    throw new ConfigError("configuration: OIDC_AUDIENCE: required when OIDC_ISSUER is set");
  if (!v.OIDC_JWKS_URL && !v.OIDC_JWKS)
    throw new ConfigError("configuration: OIDC_JWKS_URL: required when OIDC_ISSUER is set");
  let jwks: unknown;
  if (v.OIDC_JWKS) {
    try {
      jwks = JSON.parse(v.OIDC_JWKS);
    } catch {
      throw new ConfigError("configuration: OIDC_JWKS: not valid JSON");
    }
  }
  return {
    issuer: v.OIDC_ISSUER,
    audience: v.OIDC_AUDIENCE,
    ...(v.OIDC_JWKS_URL ? { jwksUrl: v.OIDC_JWKS_URL } : {}),
    ...(jwks !== undefined ? { jwks } : {}),
  };
}

/**
 * The `conformance` agent (agents/conformance: the official A2A conformance kit's scenarios) is
 * served only where `CONFORMANCE_AGENT=true`; elsewhere it is switched off like `ENABLE_<NAME>=false`.
 */
function withConformanceAgent(network: AgentNetwork, on: boolean): AgentNetwork {
  return on ? network : { ...network, disabled: [...network.disabled, "conformance"] };
}

/** Raised when a var holds a value the harness cannot use; names the var. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const cache = new WeakMap<object, Config>();

/** The Worker's vars and secrets as the schema parsed them. */
type Vars = z.output<ReturnType<typeof configSchema>>;

/**
 * Parses the Worker's vars and secrets. Memoized per `env` object, so a request pays for it once.
 * `SCRIPTED_MODEL`: `off` (default) fails tasks without a key, `auto` uses the scripted model when
 * no `ANTHROPIC_API_KEY` is set (what `npm run dev` passes), `on` always uses it.
 */
export function loadConfig(env: object): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const parsed = configSchema().safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `configuration: ${String(issue?.path.join(".") ?? "?")}: ${issue?.message ?? "invalid"}`,
    );
  }
  const v = parsed.data;
  const config: Config = {
    ...modelSettings(v),
    ...stepSettings(v),
    ...edgeSettings(v, env),
    ...afterwardSettings(v),
    trace: traceConfig(v),
  };
  cache.set(env, config);
  return config;
}

/** How the model is reached and called. */
function modelSettings(v: Vars) {
  const scripted = v.SCRIPTED_MODEL ?? "off";
  const modelMode: ModelMode =
    scripted === "on" || (scripted === "auto" && !v.ANTHROPIC_API_KEY)
      ? "scripted"
      : v.ANTHROPIC_API_KEY
        ? "anthropic"
        : "unconfigured";
  return {
    defaultAgent: v.DEFAULT_AGENT,
    defaultModel: v.DEFAULT_MODEL,
    anthropicBaseUrl: v.ANTHROPIC_BASE_URL,
    anthropicApiKey: v.ANTHROPIC_API_KEY,
    modelMode,
    modelIdleTimeoutMs: v.MODEL_IDLE_TIMEOUT_MS,
    modelMaxRetries: v.MODEL_MAX_RETRIES,
    modelRetryBaseMs: v.MODEL_RETRY_BASE_MS,
    contextTokenBudget: v.CONTEXT_TOKEN_BUDGET,
  } satisfies Partial<Config>;
}

/** What a task's steps may do: their limits, tools and checks. */
function stepSettings(v: Vars) {
  return {
    maxTurns: v.MAX_TURNS,
    maxTaskSeconds: v.MAX_TASK_SECONDS,
    maxToolCallsPerTurn: v.MAX_TOOL_CALLS_PER_TURN,
    toolsEnabled: v.TOOLS_ENABLED,
    webFetchAllowPrivate: v.WEB_FETCH_ALLOW_PRIVATE,
    regression: { maxFiles: v.REGRESSION_MAX_FILES, timeoutMs: v.REGRESSION_TIMEOUT_MS },
    runCode: {
      cpuMs: v.RUN_CODE_CPU_MS,
      timeoutMs: v.RUN_CODE_TIMEOUT_MS,
      maxOutputChars: v.RUN_CODE_MAX_OUTPUT_CHARS,
      maxModules: v.RUN_CODE_MAX_MODULES,
      maxBytes: v.RUN_CODE_MAX_BYTES,
      maxIterations: v.RUN_CODE_MAX_ITERATIONS,
    },
    verifyBeforeComplete: v.VERIFY_BEFORE_COMPLETE,
    loopDetectionThreshold: v.LOOP_DETECTION_THRESHOLD,
    compactOutputLines: v.COMPACT_OUTPUT_LINES,
    toolCallCaps: {
      ...v.TOOL_CALL_CAPS,
      ...(v.SEARCH_MAX_CALLS === undefined ? {} : { search: v.SEARCH_MAX_CALLS }),
      ...(v.FETCH_DOCUMENT_MAX_CALLS === undefined
        ? {}
        : { fetch_document: v.FETCH_DOCUMENT_MAX_CALLS }),
    },
    searchMaxResults: v.SEARCH_MAX_RESULTS,
    maxToolOutputChars: v.MAX_TOOL_OUTPUT_CHARS,
    logToolUse: v.LOG_TOOL_USE,
    rollbackOnFailure: v.ROLLBACK_ON_FAILURE,
    timeZone: v.TIME_ZONE,
  } satisfies Partial<Config>;
}

/** Who may call and how: the endpoints, credentials, the agents served and the request limits. */
function edgeSettings(v: Vars, env: object) {
  return {
    publicUrl: v.PUBLIC_URL?.replace(/\/+$/, ""),
    a2aApiKey: v.A2A_API_KEY,
    maxBodyBytes: v.MAX_BODY_BYTES,
    sseKeepaliveMs: v.SSE_KEEPALIVE_MS,
    mcpWaitSeconds: v.MCP_WAIT_SECONDS,
    longPollSeconds: v.LONG_POLL_SECONDS,
    cardMaxAgeSeconds: v.CARD_MAX_AGE_SECONDS,
    cardSigningKey: v.AGENT_CARD_SIGNING_KEY,
    adminApiKey: v.ADMIN_API_KEY,
    network: withConformanceAgent(
      parseAgentNetwork(env as Record<string, unknown>),
      v.CONFORMANCE_AGENT,
    ),
    // A shared A2A_API_KEY also closes the endpoints to callers without credentials.
    allowAnonymous: v.ALLOW_ANONYMOUS && !v.AUTH_REQUIRED && !v.A2A_API_KEY,
    corsOrigins: v.CORS_ORIGINS,
    limits: {
      messagesPerMinute: v.RATE_MESSAGES_PER_MINUTE,
      anonymousPerMinute: v.RATE_ANONYMOUS_PER_MINUTE,
      concurrentStreams: v.MAX_CONCURRENT_STREAMS,
      authFailuresPerMinute: v.AUTH_FAILURES_PER_MINUTE,
      admissionLeaseMs: v.ADMISSION_LEASE_SECONDS * 1000,
    },
    budgets: {
      taskTokens: v.BUDGET_TASK_TOKENS,
      dayTokens: v.BUDGET_DAY_TOKENS,
      monthTokens: v.BUDGET_MONTH_TOKENS,
      issuer: { dayTokens: v.BUDGET_ISSUER_DAY_TOKENS, monthTokens: v.BUDGET_ISSUER_MONTH_TOKENS },
    },
    oidc: oidcConfig(v),
    delegation: { trustedIssuers: v.TRUSTED_ISSUERS, tokenMinutes: v.DELEGATION_TOKEN_MINUTES },
  } satisfies Partial<Config>;
}

/** What happens around and after a task: push deliveries, webhooks, cron, retention, privacy. */
function afterwardSettings(v: Vars) {
  return {
    pushMaxAttempts: v.PUSH_MAX_ATTEMPTS,
    pushRetryBaseMs: v.PUSH_RETRY_BASE_MS,
    pushTimeoutMs: v.PUSH_TIMEOUT_MS,
    maxPushConfigsPerTask: v.MAX_PUSH_CONFIGS_PER_TASK,
    webhookReplayWindowSeconds: v.WEBHOOK_REPLAY_WINDOW_SECONDS,
    cronTriggers: v.CRON_TRIGGERS,
    retentionDays: v.RETENTION_DAYS,
    anonymousRetentionDays: v.ANONYMOUS_RETENTION_DAYS,
    privacy: {
      policyUrl: v.PRIVACY_POLICY_URL,
      policyText: v.PRIVACY_POLICY_TEXT,
      policyVersion: v.PRIVACY_POLICY_VERSION,
      requireConsent: v.REQUIRE_CONSENT,
    },
  } satisfies Partial<Config>;
}

/**
 * Days an ended task of `owner` is kept (0 = forever): RETENTION_DAYS, and for an anonymous
 * conversation's task the lower of it and ANONYMOUS_RETENTION_DAYS.
 */
export function retentionDaysFor(config: Config, anonymous: boolean): number {
  const all = config.retentionDays;
  const anon = config.anonymousRetentionDays;
  if (!anonymous || anon === 0) return all;
  return all === 0 ? anon : Math.min(all, anon);
}
