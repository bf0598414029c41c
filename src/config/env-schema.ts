/**
 * The zod schema of the Worker's vars and secrets: each var's type, bounds and default
 * (documented in README.md#configuration). Strings in, typed values out; config.ts shapes the
 * result into the Config type. Built on first use ({@link configSchema}), not at module load.
 * Pure: no I/O.
 */
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";
import { parseOtlpHeaders, parseResourceAttributes } from "./trace-config.ts";

const int = (fallback: number, min = 0) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? fallback : Number(v)))
    .pipe(z.number().int().min(min));

/** An optional count: undefined when unset or empty. */
const optionalInt = (min = 0) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? undefined : Number(v)))
    .pipe(z.number().int().min(min).optional());

const bool = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v) =>
      v === undefined || v.trim() === "" ? String(fallback) : v.trim().toLowerCase(),
    )
    .pipe(z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"]))
    .transform((v) => ["true", "1", "yes", "on"].includes(v));

const optionalString = lazy(() =>
  z
    .string()
    .optional()
    .transform((v) => (v && v.trim() !== "" ? v.trim() : undefined)),
);

/** An OTLP protocol (`http/protobuf`, `http/json`): undefined when unset, so the
 * signal-specific var can fall back to the generic one, and that one to protobuf. */
const otlpProtocol = lazy(() =>
  optionalString()
    .pipe(z.enum(["http/protobuf", "http/json", "protobuf", "json"]).optional())
    .transform((v) =>
      v === undefined ? undefined : v.endsWith("json") ? ("json" as const) : ("protobuf" as const),
    ),
);

/** The model of an agent whose IDENTITY.md names none, where `DEFAULT_MODEL` is unset. */
export const BUILT_IN_MODEL = "claude-sonnet-4-6";

/**
 * The vars and secrets the harness reads, with their defaults (strings in, typed values out),
 * built on its first call.
 */
export const configSchema = lazy(() =>
  z.object({
    ...modelVars(),
    ...accessVars(),
    ...traceVars(),
    ...workVars(),
    ...agentVars(),
  }),
);

/** The model, the edge and the task's limits. */
function modelVars() {
  return {
    DEFAULT_AGENT: optionalString().transform((v) => v ?? "assistant"),
    DEFAULT_MODEL: optionalString().transform((v) => v ?? BUILT_IN_MODEL),
    PUBLIC_URL: optionalString().pipe(z.url().optional()),
    ANTHROPIC_BASE_URL: optionalString().pipe(z.url().optional()),
    ANTHROPIC_API_KEY: optionalString(),
    SCRIPTED_MODEL: optionalString().pipe(z.enum(["off", "auto", "on"]).optional()),
    A2A_API_KEY: optionalString(),
    MAX_BODY_BYTES: int(1_048_576, 1024),
    MAX_TURNS: int(500, 1),
    MAX_TASK_SECONDS: int(7_200, 0),
    MAX_TOOL_CALLS_PER_TURN: int(32, 1),
    MODEL_IDLE_TIMEOUT_MS: int(60_000, 50),
    MODEL_MAX_RETRIES: int(4, 0),
    MODEL_RETRY_BASE_MS: int(1_000, 1),
    SSE_KEEPALIVE_MS: int(15_000, 50),
    MCP_WAIT_SECONDS: int(45, 1),
    LONG_POLL_SECONDS: int(25, 1).pipe(z.number().max(25, "must be at most 25")),
    CARD_MAX_AGE_SECONDS: int(300, 0),
  };
}

/** Access, privacy, rates, budgets and what the web tools may reach. */
function accessVars() {
  return {
    ADMIN_API_KEY: optionalString(),
    ALLOW_ANONYMOUS: bool(false),
    RETENTION_DAYS: int(0, 0),
    ANONYMOUS_RETENTION_DAYS: int(30, 0),
    PRIVACY_POLICY_URL: optionalString().pipe(z.url().optional()),
    PRIVACY_POLICY_TEXT: optionalString(),
    PRIVACY_POLICY_VERSION: optionalString().pipe(z.string().max(100).optional()),
    REQUIRE_CONSENT: bool(false),
    CRON_TRIGGERS: bool(true),
    CORS_ORIGINS: optionalString().transform((v) => (v === undefined ? [] : list(v))),
    RATE_MESSAGES_PER_MINUTE: int(60, 0),
    RATE_ANONYMOUS_PER_MINUTE: int(20, 0),
    MAX_CONCURRENT_STREAMS: int(5, 0),
    // How long an isolate may admit from the slices the user object leased it (users/admission-lease.ts).
    ADMISSION_LEASE_SECONDS: int(20, 10).pipe(z.number().max(300)),
    AUTH_FAILURES_PER_MINUTE: int(20, 0),
    BUDGET_TASK_TOKENS: int(5_000_000, 0),
    BUDGET_DAY_TOKENS: int(10_000_000, 0),
    BUDGET_MONTH_TOKENS: int(100_000_000, 0),
    BUDGET_ISSUER_DAY_TOKENS: int(20_000_000, 0),
    BUDGET_ISSUER_MONTH_TOKENS: int(200_000_000, 0),
    AUTH_REQUIRED: bool(false),
    OIDC_ISSUER: optionalString(),
    OIDC_AUDIENCE: optionalString(),
    OIDC_JWKS_URL: optionalString().pipe(z.url().optional()),
    OIDC_JWKS: optionalString(),
    TOOLS_ENABLED: optionalString().transform((v) =>
      v === undefined || v === "all" ? null : list(v),
    ),
    WEB_FETCH_ALLOW_PRIVATE: bool(false),
    WEB_FETCH_TRACEPARENT: bool(false),
  };
}

/** Where and how traces are exported. */
function traceVars() {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalString().pipe(z.url().optional()),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString().pipe(z.url().optional()),
    OTEL_EXPORTER_OTLP_HEADERS: optionalString().transform(parseOtlpHeaders),
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: optionalString().transform(parseOtlpHeaders),
    OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol(),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol(),
    OTEL_SERVICE_NAME: optionalString(),
    OTEL_RESOURCE_ATTRIBUTES: optionalString().transform(parseResourceAttributes),
    TRACE_INCLUDE_CONTENT: bool(false),
  };
}

/** Push delivery, checks, `run_code`, the tools' limits and the loop's settings. */
function workVars() {
  return {
    PUSH_MAX_ATTEMPTS: int(8, 1),
    MAX_PUSH_CONFIGS_PER_TASK: int(10, 1),
    REGRESSION_MAX_FILES: int(10, 0),
    REGRESSION_TIMEOUT_MS: int(2_000, 100),
    RUN_CODE_CPU_MS: int(1_000, 1),
    RUN_CODE_TIMEOUT_MS: int(10_000, 100),
    RUN_CODE_MAX_OUTPUT_CHARS: int(20_000, 100),
    RUN_CODE_MAX_MODULES: int(64, 1),
    RUN_CODE_MAX_BYTES: int(2_097_152, 1_024),
    RUN_CODE_MAX_ITERATIONS: int(100_000_000, 1_000),
    WEBHOOK_REPLAY_WINDOW_SECONDS: int(300, 1),
    PUSH_RETRY_BASE_MS: int(1_000, 1),
    PUSH_TIMEOUT_MS: int(10_000, 100),
    VERIFY_BEFORE_COMPLETE: bool(true),
    LOOP_DETECTION_THRESHOLD: int(3, 0),
    COMPACT_OUTPUT_LINES: int(50, 0),
    TOOL_CALL_CAPS: optionalString().transform((v, ctx) => caps(v ?? DEFAULT_TOOL_CALL_CAPS, ctx)),
    SEARCH_MAX_CALLS: optionalInt(),
    FETCH_DOCUMENT_MAX_CALLS: optionalInt(),
    SEARCH_MAX_RESULTS: int(3, 1).pipe(z.number().max(20)),
    MAX_TOOL_OUTPUT_CHARS: int(10_000, 100),
    LOG_TOOL_USE: bool(false),
    CONTEXT_TOKEN_BUDGET: int(60_000, 1_000),
    ROLLBACK_ON_FAILURE: bool(false),
    CONFORMANCE_AGENT: bool(false),
  };
}

/** Card signing, delegation, the plan and the clock. */
function agentVars() {
  return {
    AGENT_CARD_SIGNING_KEY: optionalString(),
    TRUSTED_ISSUERS: optionalString().transform((v, ctx) => issuers(v, ctx)),
    // At most the longest lifetime a receiving deployment accepts (auth/delegation-token.ts).
    DELEGATION_TOKEN_MINUTES: int(5, 1).pipe(z.number().max(60)),
    CF_PLAN: optionalString().pipe(z.enum(["free", "paid", "off"]).optional()),
    TIME_ZONE: optionalString()
      .transform((v) => v ?? "UTC")
      .refine((v) => {
        try {
          new Intl.DateTimeFormat("en", { timeZone: v });
          return true;
        } catch {
          return false;
        }
      }, "not an IANA time zone"),
  };
}

/** Default per-task tool call caps (`TOOL_CALL_CAPS`). */
export const DEFAULT_TOOL_CALL_CAPS =
  "web_fetch:10,fetch_document:10,search:5,grep_files:10,a2a_call:10,a2a_call_streaming:10,a2a_discover:10,run_code:20";

function list(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

const httpUrl = lazy(() => z.url({ protocol: /^https?$/ }));

/** `TRUSTED_ISSUERS`: issuer URL -> its JWKS URL, issuers without a trailing slash. */
function issuers(value: string | undefined, ctx: z.RefinementCtx): Record<string, string> {
  if (value === undefined) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: "custom", message: "not valid JSON (expected issuer URL -> JWKS URL)" });
    return {};
  }
  const parsed = z.record(httpUrl(), httpUrl()).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ctx.addIssue({
      code: "custom",
      message: `expected an object of issuer URL -> JWKS URL (${issue?.message ?? "invalid"})`,
    });
    return {};
  }
  return Object.fromEntries(
    Object.entries(parsed.data).map(([issuer, jwks]) => [issuer.replace(/\/+$/, ""), jwks]),
  );
}

function caps(value: string, ctx: z.RefinementCtx): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of list(value)) {
    const match = /^([a-z][a-z0-9_-]*):(\d+)$/.exec(entry);
    if (!match?.[1] || match[2] === undefined) {
      ctx.addIssue({ code: "custom", message: `expected tool:count pairs, got "${entry}"` });
      return out;
    }
    out[match[1]] = Number(match[2]);
  }
  return out;
}
