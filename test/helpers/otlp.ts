/**
 * OTLP/JSON traces as the tests read them, in workerd and in Node alike (no bindings): the span
 * shape, a span's attribute as a plain value, and the spans of an export.
 */

/** An attribute of a span or event. */
export type OtlpAttr = { key: string; value: Record<string, unknown> };

/** A span of an OTLP/JSON export. */
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttr[];
  events: Array<{ name: string; attributes: OtlpAttr[] }>;
  links: Array<{ spanId: string }>;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
};

/** An OTLP/JSON export (a request's body, or a task's trace). */
export type Otlp = { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };

/** The value of attribute `key` of a span (numbers as numbers). */
export function attr(span: { attributes: OtlpAttr[] }, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("boolValue" in value) return value.boolValue;
  if ("stringValue" in value) return value.stringValue;
  return value;
}

/** Every span of an export. */
export const spansOf = (otlp: Otlp): OtlpSpan[] =>
  otlp.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
