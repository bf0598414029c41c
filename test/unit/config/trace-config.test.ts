/**
 * The OTEL_* vars as the OpenTelemetry specification orders them: the signal-specific traces
 * endpoint used as given, over the generic one (which gets /v1/traces); signal-specific headers
 * and protocol over the generic ones; OTEL_SERVICE_NAME over `service.name` in
 * OTEL_RESOURCE_ATTRIBUTES (key=value pairs, values percent-decoded) over the harness's default.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/config.ts";

const trace = (env: Record<string, string>) => loadConfig(env).trace;

describe("OTLP export endpoint", () => {
  it("is off unless an endpoint is set", () => {
    expect(trace({}).export).toBeNull();
    expect(trace({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" }).export).toBeNull();
  });

  it("appends /v1/traces to the generic endpoint, after its path", () => {
    expect(trace({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://api.honeycomb.io/" }).export?.url).toBe(
      "https://api.honeycomb.io/v1/traces",
    );
    expect(trace({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://gw.test/otlp" }).export?.url).toBe(
      "https://gw.test/otlp/v1/traces",
    );
  });

  it("uses the traces endpoint as given, over the generic one", () => {
    const alone = trace({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c.test/custom" });
    expect(alone.export?.url).toBe("https://c.test/custom");
    const both = trace({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://generic.test",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.test/in/",
    });
    expect(both.export?.url).toBe("https://traces.test/in/");
  });

  it("takes the traces headers over the generic ones, name by name", () => {
    const on = trace({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://api.honeycomb.io",
      OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=abc%3D,x-other=2",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "X-Other=traces, x-dataset = spans ",
    }).export;
    expect(on?.headers).toEqual({
      "x-honeycomb-team": "abc=",
      "x-other": "traces",
      "x-dataset": "spans",
    });
  });

  it("takes the traces protocol over the generic one, protobuf by default", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.test" };
    expect(trace(endpoint).export?.protocol).toBe("protobuf");
    expect(trace({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).export?.protocol).toBe(
      "json",
    );
    const both = trace({
      ...endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
    });
    expect(both.export?.protocol).toBe("protobuf");
  });

  it("refuses a malformed value, naming the var and never the value", () => {
    expect(() => trace({ OTEL_EXPORTER_OTLP_HEADERS: "no pair here" })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    );
    expect(() => trace({ OTEL_EXPORTER_OTLP_TRACES_HEADERS: "k=secret%zz" })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_HEADERS(?!.*secret)/,
    );
    expect(() => trace({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/,
    );
    expect(() => trace({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    );
  });
});

describe("the spans' resource", () => {
  it("is the harness by default", () => {
    expect(trace({}).resource).toEqual({
      "service.name": "a2a-edge-harness",
      "telemetry.sdk.language": "js",
    });
  });

  it("takes OTEL_RESOURCE_ATTRIBUTES, values percent-decoded, keys as written", () => {
    const { resource } = trace({
      OTEL_RESOURCE_ATTRIBUTES:
        " deployment.environment = prod ,team=agents%20%26%20tools,Region=eu%2Cwest,service.name=checkout",
    });
    expect(resource).toEqual({
      "service.name": "checkout",
      "telemetry.sdk.language": "js",
      "deployment.environment": "prod",
      team: "agents & tools",
      Region: "eu,west",
    });
  });

  it("takes OTEL_SERVICE_NAME over service.name in OTEL_RESOURCE_ATTRIBUTES", () => {
    const { resource } = trace({
      OTEL_SERVICE_NAME: "harness-eu",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=checkout,service.version=2",
    });
    expect(resource["service.name"]).toBe("harness-eu");
    expect(resource["service.version"]).toBe("2");
  });

  it("is what the export sends", () => {
    const config = trace({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c.test/t",
      OTEL_SERVICE_NAME: "harness-eu",
    });
    expect(config.export?.resource).toEqual(config.resource);
  });

  it("refuses a malformed OTEL_RESOURCE_ATTRIBUTES", () => {
    expect(() => trace({ OTEL_RESOURCE_ATTRIBUTES: "a=1,=2" })).toThrow(/OTEL_RESOURCE_ATTRIBUTES/);
    expect(() => trace({ OTEL_RESOURCE_ATTRIBUTES: "bad key=1" })).toThrow(
      /OTEL_RESOURCE_ATTRIBUTES/,
    );
  });
});
