/**
 * The tracing settings: whether `web_fetch` targets get `traceparent` (`WEB_FETCH_TRACEPARENT`),
 * whether spans may carry tool arguments and error text (`TRACE_INCLUDE_CONTENT`), and OTLP/HTTP
 * export (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_PROTOCOL`):
 * off (null) unless an endpoint is set. Pure.
 */
import type { z } from "zod";

/** Where and how spans are exported. */
export interface OtlpExport {
  /** The traces URL: the endpoint with `/v1/traces` appended (as the OTLP spec says). */
  url: string;
  headers: Record<string, string>;
  protocol: "json" | "protobuf";
}

/** The parsed tracing settings. */
export interface TraceConfig {
  webFetchTraceparent: boolean;
  includeContent: boolean;
  export: OtlpExport | null;
}

/**
 * `OTEL_EXPORTER_OTLP_HEADERS` (`key=value` pairs, comma-separated, values URL-encoded) as headers;
 * a malformed pair is an issue naming its position, never its value (it holds a credential).
 */
export function parseOtlpHeaders(
  value: string | undefined,
  ctx: z.RefinementCtx,
): Record<string, string> {
  const out: Record<string, string> = {};
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
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key) || decoded === null || /[\r\n]/.test(decoded)) {
      ctx.addIssue({ code: "custom", message: `pair ${i + 1} is not key=value` });
      return {};
    }
    out[key.toLowerCase()] = decoded;
  }
  return out;
}

/** The tracing settings from the parsed vars. */
export function traceConfig(v: {
  WEB_FETCH_TRACEPARENT: boolean;
  TRACE_INCLUDE_CONTENT: boolean;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_HEADERS: Record<string, string>;
  OTEL_EXPORTER_OTLP_PROTOCOL: "json" | "protobuf";
}): TraceConfig {
  const endpoint = v.OTEL_EXPORTER_OTLP_ENDPOINT;
  return {
    webFetchTraceparent: v.WEB_FETCH_TRACEPARENT,
    includeContent: v.TRACE_INCLUDE_CONTENT,
    export: endpoint
      ? {
          url: /\/v1\/traces\/?$/.test(endpoint)
            ? endpoint
            : `${endpoint.replace(/\/+$/, "")}/v1/traces`,
          headers: v.OTEL_EXPORTER_OTLP_HEADERS,
          protocol: v.OTEL_EXPORTER_OTLP_PROTOCOL,
        }
      : null,
  };
}
