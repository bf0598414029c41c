/**
 * The tracing settings: whether `web_fetch` targets get `traceparent` (`WEB_FETCH_TRACEPARENT`),
 * whether spans may carry tool arguments and error text (`TRACE_INCLUDE_CONTENT`), the resource
 * the spans belong to (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`), and OTLP/HTTP export
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `_HEADERS` / `_PROTOCOL`, each over its generic
 * `OTEL_EXPORTER_OTLP_*` form, as the OpenTelemetry specification orders them): off (null) unless
 * an endpoint is set. Pure.
 */
import type { z } from "zod";

/** Where and how spans are exported. */
export interface OtlpExport {
  /**
   * The traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else the generic endpoint with
   * `/v1/traces` appended (the OTLP exporter specification's rule for each).
   */
  url: string;
  headers: Record<string, string>;
  protocol: "json" | "protobuf";
  /** The resource the spans are sent under (the same as {@link TraceConfig.resource}). */
  resource: Record<string, string>;
}

/** The parsed tracing settings. */
export interface TraceConfig {
  webFetchTraceparent: boolean;
  includeContent: boolean;
  /** The attributes of the resource every exported span belongs to (`service.name` among them). */
  resource: Record<string, string>;
  export: OtlpExport | null;
}

/** The service name spans are exported under unless `OTEL_SERVICE_NAME` (or `service.name` in
 * `OTEL_RESOURCE_ATTRIBUTES`) names another. */
export const DEFAULT_SERVICE_NAME = "a2a-edge-harness";

/** A key as W3C Baggage and HTTP header names allow it (an RFC 9110 token). */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * `key=value` pairs, comma-separated, whitespace around each trimmed and each value
 * percent-decoded (the format of `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_RESOURCE_ATTRIBUTES`); a
 * malformed pair is an issue naming its position, never its value (a header holds a credential).
 */
function parsePairs(value: string | undefined, ctx: z.RefinementCtx): Map<string, string> {
  const out = new Map<string, string>();
  if (!value) return out;
  const pairs = value.split(",").filter((p) => p.trim() !== "");
  for (const [i, pair] of pairs.entries()) {
    const eq = pair.indexOf("=");
    const key = eq > 0 ? pair.slice(0, eq).trim() : "";
    let decoded: string | null = null;
    try {
      decoded = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      decoded = null;
    }
    if (!TOKEN.test(key) || decoded === null || /[\r\n]/.test(decoded)) {
      ctx.addIssue({ code: "custom", message: `pair ${i + 1} is not key=value` });
      return new Map();
    }
    out.set(key, decoded);
  }
  return out;
}

/** `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` as headers (names lowercased). */
export function parseOtlpHeaders(
  value: string | undefined,
  ctx: z.RefinementCtx,
): Record<string, string> {
  const pairs = parsePairs(value, ctx);
  return Object.fromEntries([...pairs].map(([k, v]) => [k.toLowerCase(), v]));
}

/** `OTEL_RESOURCE_ATTRIBUTES` as attributes: keys as written, values percent-decoded. */
export function parseResourceAttributes(
  value: string | undefined,
  ctx: z.RefinementCtx,
): Record<string, string> {
  return Object.fromEntries(parsePairs(value, ctx));
}

/** The OTEL_* vars as parsed (undefined: unset or empty). */
export interface OtelVars {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_HEADERS: Record<string, string>;
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: Record<string, string>;
  OTEL_EXPORTER_OTLP_PROTOCOL?: "json" | "protobuf" | undefined;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: "json" | "protobuf" | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_RESOURCE_ATTRIBUTES: Record<string, string>;
}

/**
 * The traces URL: the signal-specific endpoint used as given; else the generic one as a base,
 * `/v1/traces` appended after its path (one slash between); else none.
 */
export function tracesUrl(v: OtelVars): string | null {
  if (v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = v.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : null;
}

/**
 * The resource's attributes: the harness's defaults, then `OTEL_RESOURCE_ATTRIBUTES` over them,
 * then `OTEL_SERVICE_NAME` over `service.name` (the specification's precedence).
 */
export function resourceAttributes(v: OtelVars): Record<string, string> {
  return {
    "service.name": DEFAULT_SERVICE_NAME,
    "telemetry.sdk.language": "js",
    ...v.OTEL_RESOURCE_ATTRIBUTES,
    ...(v.OTEL_SERVICE_NAME ? { "service.name": v.OTEL_SERVICE_NAME } : {}),
  };
}

/** The tracing settings from the parsed vars. */
export function traceConfig(
  v: OtelVars & { WEB_FETCH_TRACEPARENT: boolean; TRACE_INCLUDE_CONTENT: boolean },
): TraceConfig {
  const url = tracesUrl(v);
  const resource = resourceAttributes(v);
  return {
    webFetchTraceparent: v.WEB_FETCH_TRACEPARENT,
    includeContent: v.TRACE_INCLUDE_CONTENT,
    resource,
    export: url
      ? {
          url,
          // Signal-specific headers over the generic ones, name by name (as the JS SDK merges them).
          headers: { ...v.OTEL_EXPORTER_OTLP_HEADERS, ...v.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
          protocol:
            v.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? v.OTEL_EXPORTER_OTLP_PROTOCOL ?? "protobuf",
          resource,
        }
      : null,
  };
}
