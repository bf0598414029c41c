/**
 * The OTLP/HTTP receiver the traces test and the benches share (test/fake-collector): it is sent
 * the same spans as the harness's exporter encodes them (src/trace/otlp.ts, the OpenTelemetry
 * project's encoders) as JSON, as protobuf and gzipped; it counts every span in each encoding and
 * keeps the JSON ones as sent; a body it cannot read is refused and counted apart. No dev server.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSpans } from "../../src/trace/otlp.ts";
import type { TraceSpan } from "../../src/trace/span-types.ts";
import { type FakeCollector, startFakeCollector } from "../fake-collector/server.ts";

const span = (i: number): TraceSpan => ({
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: `00f067aa0ba902${String(i).padStart(2, "0")}`,
  ...(i > 0 ? { parentSpanId: "00f067aa0ba90200" } : {}),
  taskId: "t",
  name: i === 0 ? "invoke_agent assistant" : `chat claude ${i}`,
  kind: i === 0 ? "server" : "client",
  startMs: 1_700_000_000_000 + i,
  endMs: 1_700_000_000_250 + i,
  attributes: { "gen_ai.usage.input_tokens": 12 + i, "gen_ai.response.finish_reasons": ["end"] },
  events: [{ name: "harness.verification", atMs: 1_700_000_000_100, attributes: {} }],
  links:
    i === 2 ? [{ traceId: "4bf92f3577b34da6a3ce929d0e0e4737", spanId: "1", attributes: {} }] : [],
  status: { code: i === 3 ? "error" : "unset", ...(i === 3 ? { message: "failed" } : {}) },
});
const spans = Array.from({ length: 7 }, (_, i) => span(i));
const RESOURCE = { "service.name": "fake-collector-test" };

let collector: FakeCollector;
beforeAll(async () => {
  collector = await startFakeCollector();
});
afterAll(() => collector.close());

const post = (body: Uint8Array, headers: Record<string, string>) =>
  fetch(`${collector.url}/v1/traces`, { method: "POST", headers, body: Buffer.from(body) });
const JSON_TYPE = { "content-type": "application/json" };
const PROTOBUF = { "content-type": "application/x-protobuf" };

describe("the fake OTLP collector", () => {
  it("counts every span the exporter encodes, as JSON and as protobuf", async () => {
    const sent = [
      await post(encodeSpans(spans, "json", RESOURCE), { ...JSON_TYPE, "x-key": "k" }),
      await post(encodeSpans(spans, "protobuf", RESOURCE), { ...PROTOBUF, "x-key": "k" }),
      await post(encodeSpans(spans.slice(0, 1), "protobuf", RESOURCE), {
        ...PROTOBUF,
        "x-key": "k",
      }),
    ];
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(collector.counts()).toEqual({
      requests: 3,
      spans: 15,
      json: 1,
      protobuf: 2,
      malformed: 0,
    });
    expect(collector.spans.map((s) => s.name)).toEqual(spans.map((s) => s.name));
    expect(collector.headers.map((h) => h["x-key"])).toEqual(["k", "k", "k"]);
  });

  it("reads a gzipped body, and refuses one it cannot read without counting its spans", async () => {
    const before = collector.counts();
    const gz = await post(gzipSync(encodeSpans(spans, "protobuf", RESOURCE)), {
      ...PROTOBUF,
      "content-encoding": "gzip",
    });
    expect(gz.status).toBe(200);
    const bytes = encodeSpans(spans, "protobuf", RESOURCE);
    const truncated = await post(bytes.subarray(0, bytes.length - 3), PROTOBUF);
    const notJson = await post(new TextEncoder().encode("{"), JSON_TYPE);
    expect([truncated.status, notJson.status]).toEqual([400, 400]);
    expect((await fetch(`${collector.url}/v1/metrics`, { method: "POST" })).status).toBe(404);
    expect(collector.counts()).toEqual({
      ...before,
      requests: before.requests + 1,
      spans: before.spans + spans.length,
      protobuf: before.protobuf + 1,
      malformed: 2,
    });
  });
});
