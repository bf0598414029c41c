/** A request's JSON body for a schema: parsed, undefined when not JSON, `{}` for an empty one. */
import { describe, expect, it } from "vitest";
import { jsonBody, jsonBodyOrEmpty } from "../../../src/platform/json-body.ts";

const post = (body: string) => new Request("http://h.test/", { method: "POST", body });

describe("jsonBody", () => {
  it("parses JSON and reads anything else, an empty body too, as undefined", async () => {
    expect(await jsonBody(post('{"a":[1]}'))).toEqual({ a: [1] });
    expect(await jsonBody(post("null"))).toBeNull();
    expect(await jsonBody(post("{oops"))).toBeUndefined();
    expect(await jsonBody(post(""))).toBeUndefined();
  });

  it("is undefined for a body already read", async () => {
    const request = post("{}");
    await request.text();
    expect(await jsonBody(request)).toBeUndefined();
  });
});

describe("jsonBodyOrEmpty", () => {
  it("reads an empty or blank body as no fields", async () => {
    expect(await jsonBodyOrEmpty(post(""))).toEqual({});
    expect(await jsonBodyOrEmpty(post(" \n"))).toEqual({});
    expect(await jsonBodyOrEmpty(new Request("http://h.test/", { method: "POST" }))).toEqual({});
    expect(await jsonBodyOrEmpty(post('{"cron":"0 3 * * *"}'))).toEqual({ cron: "0 3 * * *" });
    expect(await jsonBodyOrEmpty(post("[oops"))).toBeUndefined();
  });
});
