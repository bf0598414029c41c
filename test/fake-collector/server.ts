/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for the tests and the benches: `POST /v1/traces` (or
 * the paths it is started with: a signal-specific endpoint is used as given) with
 * an `ExportTraceServiceRequest` as OTLP/JSON (`application/json`) or protobuf
 * (`application/x-protobuf`), gzipped or not. It answers 200 as soon as the body is read (400 for
 * a body it cannot read, 404 elsewhere), counts requests and spans in both encodings, keeps every
 * JSON span as sent, and the path, headers and (JSON) resource attributes of each request.
 * Protobuf spans are counted, not decoded.
 * Node only.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import type { OtlpSpan } from "../helpers/otlp.ts";

/** What the receiver has counted so far. */
export interface CollectorCounts {
  /** Trace requests it accepted. */
  requests: number;
  /** Spans in them, both encodings. */
  spans: number;
  /** Requests by encoding. */
  json: number;
  protobuf: number;
  /** Requests to a trace path whose body it could not read (answered 400). */
  malformed: number;
}

/** A running receiver. */
export interface FakeCollector {
  /** The base URL: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  port: number;
  counts(): CollectorCounts;
  /** Every span of the JSON requests, in arrival order. */
  spans: OtlpSpan[];
  /** The headers of each accepted request. */
  headers: IncomingHttpHeaders[];
  /** The path each accepted request was posted to. */
  paths: string[];
  /** The first resource's string attributes of each accepted request (protobuf: `{}`, not decoded). */
  resources: Array<Record<string, string>>;
  close(): Promise<void>;
}

/** The length-delimited fields numbered `field` of a protobuf message (others are skipped). */
function* lengthDelimited(message: Uint8Array, field: number): Generator<Uint8Array> {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = message[at++];
      if (byte === undefined || shift > 63) throw new Error("truncated varint");
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const tag = varint();
    const wireType = tag % 8;
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (at + length > message.length) throw new Error("truncated field");
      if (Math.floor(tag / 8) === field) yield message.subarray(at, at + length);
      at += length;
    } else throw new Error(`wire type ${wireType}`);
  }
  if (at !== message.length) throw new Error("truncated message");
}

/** Spans in a protobuf `ExportTraceServiceRequest`: resource_spans (1) > scope_spans (2) > spans (2). */
export function protobufSpanCount(body: Uint8Array): number {
  let count = 0;
  for (const resource of lengthDelimited(body, 1))
    for (const scope of lengthDelimited(resource, 2))
      for (const _span of lengthDelimited(scope, 2)) count++;
  return count;
}

/** An OTLP/JSON `ExportTraceServiceRequest`, as far as the receiver reads it. */
type JsonRequest = {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
};

/** The spans and the first resource's string attributes of an OTLP/JSON request. */
function readJson(body: Buffer): { spans: OtlpSpan[]; resource: Record<string, string> } {
  const request = JSON.parse(body.toString("utf8")) as JsonRequest;
  if (!Array.isArray(request.resourceSpans)) throw new Error("no resourceSpans");
  const attributes = request.resourceSpans[0]?.resource?.attributes ?? [];
  return {
    spans: request.resourceSpans.flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? [])),
    resource: Object.fromEntries(attributes.map((a) => [a.key, a.value.stringValue ?? ""])),
  };
}

/**
 * Starts the receiver on `port` (0: a free one) of 127.0.0.1, taking posts to `paths`
 * (default `/v1/traces`).
 */
export async function startFakeCollector(
  port = 0,
  paths: readonly string[] = ["/v1/traces"],
): Promise<FakeCollector> {
  const counts: CollectorCounts = { requests: 0, spans: 0, json: 0, protobuf: 0, malformed: 0 };
  const spans: OtlpSpan[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const posted: string[] = [];
  const resources: Array<Record<string, string>> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      if (!paths.includes(path) || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      const type = req.headers["content-type"] ?? "";
      try {
        const raw = Buffer.concat(chunks);
        const body = req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
        if (type.startsWith("application/json")) {
          const got = readJson(body);
          spans.push(...got.spans);
          resources.push(got.resource);
          counts.spans += got.spans.length;
          counts.json++;
        } else if (type.startsWith("application/x-protobuf")) {
          counts.spans += protobufSpanCount(body);
          resources.push({});
          counts.protobuf++;
        } else throw new Error(`content-type ${type}`);
      } catch {
        counts.malformed++;
        res.writeHead(400).end();
        return;
      }
      counts.requests++;
      headers.push(req.headers);
      posted.push(path);
      if (type.startsWith("application/json"))
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      else res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    counts: () => ({ ...counts }),
    spans,
    headers,
    paths: posted,
    resources,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
