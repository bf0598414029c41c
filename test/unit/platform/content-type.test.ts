/**
 * Which request bodies count as JSON (src/platform/content-type.ts): JSON and any +json type; a
 * body sent as anything else, or without a type, is refused, since another site can send those
 * without a CORS preflight; a request without a body has nothing to refuse.
 */
import { describe, expect, it } from "vitest";
import { isJsonContentType, nonJsonBody } from "../../../src/platform/content-type.ts";

const post = (body: string | null, headers: Record<string, string> = {}) => {
  const request = new Request("http://harness.test/x", { method: "POST", body, headers });
  // A Request made here carries the type its body implies (text/plain for a string) unless told.
  if (!("content-type" in headers)) request.headers.delete("content-type");
  return request;
};

describe("JSON request bodies", () => {
  it("reads JSON, a2a+json and any +json type as JSON; nothing else, and no type is not JSON", () => {
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/a2a+json",
      "Application/Vnd.Thing+JSON",
    ])
      expect(isJsonContentType(type), type).toBe(true);
    for (const type of [
      undefined,
      "",
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
    ])
      expect(isJsonContentType(type), String(type)).toBe(false);
  });

  it("refuses a body sent as text/plain, a form or with no type; takes JSON and no body", () => {
    expect(nonJsonBody(post("{}", { "content-type": "text/plain" }))).toContain("not text/plain");
    expect(
      nonJsonBody(post("a=1", { "content-type": "application/x-www-form-urlencoded" })),
    ).toContain("application/x-www-form-urlencoded");
    expect(nonJsonBody(post("{}"))).toContain("it has no Content-Type");
    expect(nonJsonBody(post("{}", { "content-type": "application/json" }))).toBeNull();
    expect(nonJsonBody(post(null))).toBeNull();
    expect(
      nonJsonBody(post("", { "content-length": "0", "content-type": "text/plain" })),
    ).toBeNull();
  });
});
