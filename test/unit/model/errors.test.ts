import { AnthropicError, APIConnectionError, APIError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  backoffMs,
  classifyModelError,
  MALFORMED_STREAM_RETRIES,
  ModelStallError,
  ModelStreamCutError,
  retryAfterMs,
  streamFault,
} from "../../../src/model/errors.ts";

const apiError = (status: number, type: string, headers: Record<string, string> = {}) =>
  APIError.generate(
    status,
    { type: "error", error: { type, message: `${type} happened` } },
    undefined,
    new Headers(headers),
  );

describe("model error classification", () => {
  it("retries overload, rate limits, 5xx, connection errors and stalls", () => {
    expect(classifyModelError(apiError(529, "overloaded_error")).retryable).toBe(true);
    expect(classifyModelError(apiError(500, "api_error")).retryable).toBe(true);
    expect(classifyModelError(new APIConnectionError({ message: "down" })).retryable).toBe(true);
    expect(classifyModelError(new ModelStallError(100))).toEqual({
      kind: "stall",
      retryable: true,
      message: "the model stream stalled (no data for 100 ms)",
    });
  });

  it("honours retry-after", () => {
    expect(
      classifyModelError(apiError(429, "rate_limit_error", { "retry-after": "3" })),
    ).toMatchObject({
      retryable: true,
      retryAfterMs: 3000,
    });
  });

  it("honours retry-after-ms before retry-after, and retry-after as an HTTP date", () => {
    const both = apiError(529, "overloaded_error", {
      "retry-after-ms": "2500",
      "retry-after": "9",
    });
    expect(classifyModelError(both)).toMatchObject({ kind: "overloaded", retryAfterMs: 2500 });
    const now = Date.parse("2026-12-02T03:00:00Z");
    const date = new Headers({ "retry-after": "Wed, 02 Dec 2026 03:00:07 GMT" });
    expect(retryAfterMs(date, now)).toBe(7000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "999999999" }))).toBe(120_000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  });

  it("classes a stream cut short apart: an error event, a dropped connection, no message_stop", () => {
    const event = new APIError(
      undefined,
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      undefined,
      new Headers(),
    );
    const cutByEvent = streamFault(event);
    expect(cutByEvent).toBeInstanceOf(ModelStreamCutError);
    expect(classifyModelError(cutByEvent)).toEqual({
      kind: "cut",
      retryable: true,
      message: "the model stream was cut (an error event: overloaded_error: Overloaded)",
    });
    const lost = new AnthropicError("Network connection lost.");
    expect(classifyModelError(streamFault(lost))).toMatchObject({
      kind: "cut",
      message: "the model stream was cut (Network connection lost.)",
    });
    const noStop = new AnthropicError(
      "stream ended without producing a Message with role=assistant",
    );
    expect(classifyModelError(streamFault(noStop)).message).toBe(
      "the model stream was cut (it ended before message_stop)",
    );
    // An HTTP error before the stream and a stream the SDK cannot parse stay what they are.
    expect(classifyModelError(streamFault(apiError(529, "overloaded_error"))).kind).toBe(
      "overloaded",
    );
    const order = new AnthropicError("Unexpected event order, got message_start");
    expect(classifyModelError(streamFault(order)).kind).toBe("malformed");
  });

  it("fails fast on client errors with a message fit for the client", () => {
    const bad = classifyModelError(apiError(400, "invalid_request_error"));
    expect(bad.retryable).toBe(false);
    expect(bad.message).toBe(
      "the model API rejected the request (invalid_request_error, 400): invalid_request_error happened",
    );
    expect(classifyModelError(apiError(401, "authentication_error")).message).toContain(
      "ANTHROPIC_API_KEY",
    );
  });

  it("names the cause of an error that is not the API's, never just 'unexpectedly'", () => {
    expect(classifyModelError(new TypeError("x is undefined"))).toEqual({
      kind: "fatal",
      retryable: false,
      message: "the model call failed unexpectedly (TypeError: x is undefined)",
    });
    expect(classifyModelError("a string\nthrown").message).toBe(
      "the model call failed unexpectedly (a string thrown)",
    );
    expect(classifyModelError(new Error("x".repeat(400))).message).toHaveLength(
      "the model call failed unexpectedly ()".length + 301,
    );
  });

  it("retries a stream the SDK could not parse once, naming the SDK's message", () => {
    const order = new AnthropicError(
      'Unexpected event order, got message_start before receiving "message_stop"',
    );
    expect(classifyModelError(order)).toEqual({
      kind: "malformed",
      retryable: true,
      retryLimit: MALFORMED_STREAM_RETRIES,
      message:
        'the model stream was malformed (Unexpected event order, got message_start before receiving "message_stop")',
    });
    expect(MALFORMED_STREAM_RETRIES).toBe(1);
    expect(
      classifyModelError(new AnthropicError("request ended without sending any chunks")).message,
    ).toBe("the model stream was malformed (request ended without sending any chunks)");
    // An API error (a subclass) is still sorted by its status, not as a malformed stream.
    expect(classifyModelError(apiError(529, "overloaded_error")).retryLimit).toBeUndefined();
  });

  it("backs off exponentially with a cap and jitter", () => {
    const none = () => 0;
    expect([1, 2, 3, 4].map((a) => backoffMs(a, 100, undefined, none))).toEqual([
      100, 200, 400, 800,
    ]);
    expect(backoffMs(30, 1000, undefined, none)).toBe(60_000);
    expect(backoffMs(1, 100, undefined, () => 1)).toBe(120);
    expect(backoffMs(1, 100, 5000, none)).toBe(5000);
  });
});
