/**
 * Spans as OTLP: each {@link TraceSpan} turned into the SDK's ReadableSpan shape and encoded by
 * `@opentelemetry/otlp-transformer` (OTLP/JSON, or protobuf for `http/protobuf`), so the bytes are
 * the OpenTelemetry project's, not ours. One resource (its attributes from the trace config:
 * `service.name` and `OTEL_RESOURCE_ATTRIBUTES`) and one instrumentation scope. Pure.
 */
import { type HrTime, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { DEFAULT_SERVICE_NAME } from "../config/trace-config.ts";
import type { TraceSpan } from "./span-types.ts";

const SCOPE = { name: DEFAULT_SERVICE_NAME, version: "1" };
const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT };
const CODES = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR };

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** The resource the spans belong to (the SDK's Resource interface, without detectors). */
function resourceOf(attributes: Record<string, string>): ReadableSpan["resource"] {
  const resource: ReadableSpan["resource"] = {
    attributes,
    merge: () => resource,
    getRawAttributes: () => Object.entries(attributes),
  };
  return resource;
}

function readable(span: TraceSpan, resource: ReadableSpan["resource"]): ReadableSpan {
  const context = (spanId: string) => ({ traceId: span.traceId, spanId, traceFlags: 1 });
  const end = Math.max(span.startMs, span.endMs);
  return {
    name: span.name,
    kind: KINDS[span.kind],
    spanContext: () => context(span.spanId),
    ...(span.parentSpanId ? { parentSpanContext: context(span.parentSpanId) } : {}),
    startTime: hr(span.startMs),
    endTime: hr(end),
    duration: hr(end - span.startMs),
    status: {
      code: CODES[span.status.code],
      ...(span.status.message ? { message: span.status.message } : {}),
    },
    attributes: span.attributes,
    links: span.links.map((l) => ({
      context: { traceId: l.traceId, spanId: l.spanId, traceFlags: 1 },
      attributes: l.attributes,
    })),
    events: span.events.map((e) => ({ name: e.name, time: hr(e.atMs), attributes: e.attributes })),
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * An OTLP ExportTraceServiceRequest holding `spans` under one resource of `resource`'s attributes
 * (the trace config's), as JSON or protobuf bytes.
 */
export function encodeSpans(
  spans: TraceSpan[],
  protocol: "json" | "protobuf",
  resource: Record<string, string>,
): Uint8Array {
  const serializer = protocol === "json" ? JsonTraceSerializer : ProtobufTraceSerializer;
  const owner = resourceOf(resource);
  return serializer.serializeRequest(spans.map((s) => readable(s, owner))) ?? new Uint8Array();
}

/** The OTLP/JSON request as an object (the trace route's answer). */
export function otlpJson(spans: TraceSpan[], resource: Record<string, string>): unknown {
  return JSON.parse(new TextDecoder().decode(encodeSpans(spans, "json", resource)));
}
