/**
 * Media types of answers (src/edge/media-types.ts) and ProtoJSON field names (src/protocol/wire.ts):
 * which JSON type an answer carries, when an Accept header names a type, and proto names on input.
 */
import { describe, expect, it } from "vitest";
import { accepts, answerMediaType } from "../../../src/edge/media-types.ts";
import { getTaskParams, listTasksParams, sendMessageParams } from "../../../src/protocol/params.ts";

describe("answer media types", () => {
  it("answers application/a2a+json only to a client that asks for it", () => {
    const answer = (headers: Record<string, string>) => answerMediaType(new Headers(headers));
    expect(answer({})).toBe("application/json");
    expect(answer({ Accept: "*/*" })).toBe("application/json");
    expect(answer({ Accept: "application/json" })).toBe("application/json");
    expect(answer({ Accept: "application/a2a+json, application/json" })).toBe(
      "application/a2a+json",
    );
    expect(answer({ Accept: "application/a2a+json;q=0, application/json" })).toBe(
      "application/json",
    );
    expect(answer({ "Content-Type": "application/a2a+json" })).toBe("application/a2a+json");
  });

  it("hears a type asked for by name only: a wildcard or a zero quality is not asking", () => {
    const proto = "application/vnd.ag-ui.event+proto";
    expect(accepts(proto, proto)).toBe(true);
    expect(accepts(`text/event-stream, ${proto};q=0.5`, proto)).toBe(true);
    for (const accept of ["*/*", "application/*", "", "text/event-stream", `${proto};q=0`])
      expect(accepts(accept, proto), accept).toBe(false);
  });
});

describe("ProtoJSON field names", () => {
  it("takes the proto (snake_case) names of fields, camelCase first, never inside maps", () => {
    expect(getTaskParams().parse({ id: "t", history_length: 1 })).toEqual({
      id: "t",
      historyLength: 1,
    });
    expect(getTaskParams().parse({ id: "t", history_length: 1, historyLength: 2 })).toEqual({
      id: "t",
      historyLength: 2,
    });
    expect(listTasksParams().parse({ context_id: "c", page_size: 5 })).toMatchObject({
      contextId: "c",
      pageSize: 5,
    });
    const sent = sendMessageParams().parse({
      message: {
        message_id: "m",
        role: "ROLE_USER",
        parts: [{ raw: "dGNr", media_type: "text/plain" }],
        metadata: { my_key: 1 },
      },
      configuration: { return_immediately: true },
    });
    expect(sent).toMatchObject({
      message: {
        messageId: "m",
        parts: [{ raw: "dGNr", mediaType: "text/plain" }],
        metadata: { my_key: 1 },
      },
      configuration: { returnImmediately: true },
    });
  });
});
