/**
 * OTLP export: one POST of a task's spans, JSON or protobuf, with the configured headers; a
 * collector that is down, refuses or redirects loses the spans without throwing (a redirect is
 * never followed: the headers hold a credential), and says so at most once a minute, not once per
 * span. The spans go under the configured resource. (The OTEL_* vars:
 * test/unit/config/trace-config.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { exportSpans } from "../../../src/trace/export.ts";
import type { TraceSpan } from "../../../src/trace/span-types.ts";

const span = (spanId: string, parentSpanId?: string): TraceSpan => ({
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId,
  ...(parentSpanId ? { parentSpanId } : {}),
  taskId: "t",
  name: "chat claude",
  kind: "client",
  startMs: 1_700_000_000_000,
  endMs: 1_700_000_000_250,
  attributes: { "gen_ai.usage.input_tokens": 12, "gen_ai.response.finish_reasons": ["end_turn"] },
  events: [{ name: "harness.verification", atMs: 1_700_000_000_100, attributes: {} }],
  links: [],
  status: { code: "unset" },
});

afterEach(() => vi.restoreAllMocks());

describe("OTLP export", () => {
  it("posts every span in one request, as JSON or protobuf, with the headers", async () => {
    const calls: Request[] = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      calls.push(new Request(input as string, init));
      return new Response("{}");
    };
    const target = {
      url: "https://otel.test/v1/traces",
      headers: { "x-key": "k" },
      resource: { "service.name": "checkout", "deployment.environment": "test" },
    };
    const spans = [span("00f067aa0ba902b7"), span("00f067aa0ba902b8", "00f067aa0ba902b7")];
    expect(await exportSpans({ ...target, protocol: "json" }, spans, fetchImpl)).toBe(true);
    expect(await exportSpans({ ...target, protocol: "protobuf" }, spans, fetchImpl)).toBe(true);
    expect(calls.map((c) => c.headers.get("content-type"))).toEqual([
      "application/json",
      "application/x-protobuf",
    ]);
    expect(calls.every((c) => c.headers.get("x-key") === "k")).toBe(true);
    const json = (await calls[0]?.json()) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string }> };
        scopeSpans: Array<{
          spans: Array<{ spanId: string; parentSpanId?: string; events: unknown[] }>;
        }>;
      }>;
    };
    const sent = json.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    expect(sent.map((s) => s.spanId)).toEqual(["00f067aa0ba902b7", "00f067aa0ba902b8"]);
    expect(sent[1]?.parentSpanId).toBe("00f067aa0ba902b7");
    expect(sent[0]?.events).toHaveLength(1);
    expect(json.resourceSpans[0]?.resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "checkout" } },
      { key: "deployment.environment", value: { stringValue: "test" } },
    ]);
    const bytes = new Uint8Array(await (calls[1] as Request).arrayBuffer());
    expect(bytes.length).toBeGreaterThan(50);
  });

  it("drops the spans of a failed export without throwing, and logs once, not per span", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const down: typeof fetch = async () => {
      throw new TypeError("connection refused");
    };
    const refusing: typeof fetch = async () => new Response("no", { status: 503 });
    const target = {
      url: "https://otel.test/v1/traces",
      headers: {},
      protocol: "json" as const,
      resource: {},
    };
    const many = Array.from({ length: 20 }, (_, i) =>
      span(`00f067aa0ba902${String(i).padStart(2, "0")}`),
    );
    expect(await exportSpans(target, many, down)).toBe(false);
    expect(await exportSpans(target, many, refusing)).toBe(false);
    expect(await exportSpans(target, many, down)).toBe(false);
    expect(warn.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it("never follows a redirect, so its credential headers reach only the collector", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const reached: Array<{ url: string; key: string | null }> = [];
    // A fetch that follows redirects unless told not to, as the runtime's does.
    const fetchImpl: typeof fetch = async (input, init) => {
      const request = new Request(input as string, init);
      reached.push({ url: request.url, key: request.headers.get("x-key") });
      if (request.url.startsWith("https://elsewhere.test/")) return new Response("{}");
      const moved = new Response(null, {
        status: 307,
        headers: { location: "https://elsewhere.test/v1/traces" },
      });
      return request.redirect === "follow"
        ? fetchImpl(moved.headers.get("location") as string, init)
        : moved;
    };
    const target = {
      url: "https://otel.test/v1/traces",
      headers: { "x-key": "k" },
      protocol: "json" as const,
      resource: { "service.name": "checkout" },
    };
    expect(await exportSpans(target, [span("00f067aa0ba902b7")], fetchImpl)).toBe(false);
    expect(reached.map((r) => r.url)).toEqual(["https://otel.test/v1/traces"]);
  });
});
