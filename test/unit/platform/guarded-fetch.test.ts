/**
 * The whole `fetch` through the SSRF guard (src/platform/guarded-fetch.ts's guardedFetch, what a
 * tool in code gets), beyond the GETs web_fetch sends: a request's method, headers and body reach
 * the host; a 307 sends them again, a 303 (or a 302 answering a POST) goes on as a GET without
 * the body; `redirect: "manual"` answers the redirect itself; a refused URL throws FetchRefused
 * with nothing sent. The SSRF policy itself is ssrf.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { FetchRefused, guardedFetch } from "../../../src/platform/guarded-fetch.ts";

interface Sent {
  url: string;
  method: string;
  body: string;
  contentType: string | null;
}

/** A fetch that answers from `routes` (404 otherwise) and records each request it was sent. */
function fakeSend(routes: Record<string, () => Response>) {
  const sent: Sent[] = [];
  const send = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({
      url: request.url,
      method: request.method,
      body: await request.text(),
      contentType: request.headers.get("content-type"),
    });
    return routes[request.url]?.() ?? new Response("nope", { status: 404 });
  };
  return { fetch: guardedFetch(send, { allowPrivate: false }, new AbortController().signal), sent };
}

const redirect = (status: number, location: string) => () =>
  new Response(null, { status, headers: { location } });
const post = {
  method: "POST",
  body: '{"order":7}',
  headers: { "content-type": "application/json" },
};

describe("the guarded fetch", () => {
  it("sends a request's method, headers and body", async () => {
    const { fetch, sent } = fakeSend({ "https://api.example.com/a": () => new Response("made") });
    const response = await fetch("https://api.example.com/a", post);
    expect(await response.text()).toBe("made");
    expect(sent).toEqual([
      {
        url: "https://api.example.com/a",
        method: "POST",
        body: '{"order":7}',
        contentType: "application/json",
      },
    ]);
  });

  it("sends the body again on a 307, and goes on as a GET without it on a 303 or a POST's 302", async () => {
    const { fetch, sent } = fakeSend({
      "https://api.example.com/a": redirect(307, "/b"),
      "https://api.example.com/b": redirect(303, "/c"),
      "https://api.example.com/c": () => new Response("done"),
      "https://api.example.com/p": redirect(302, "/c"),
    });
    expect(await (await fetch("https://api.example.com/a", post)).text()).toBe("done");
    expect(sent.map((s) => [s.method, s.body, s.contentType])).toEqual([
      ["POST", '{"order":7}', "application/json"],
      ["POST", '{"order":7}', "application/json"],
      ["GET", "", null],
    ]);
    sent.length = 0;
    expect(await (await fetch("https://api.example.com/p", post)).text()).toBe("done");
    expect(sent.map((s) => s.method)).toEqual(["POST", "GET"]);
  });

  it("answers the redirect itself with redirect manual", async () => {
    const { fetch, sent } = fakeSend({ "https://api.example.com/a": redirect(302, "/b") });
    const manual = await fetch("https://api.example.com/a", { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/b");
    expect(sent.map((s) => s.url)).toEqual(["https://api.example.com/a"]);
  });

  it("throws FetchRefused for a private address, sending nothing", async () => {
    const { fetch, sent } = fakeSend({});
    await expect(fetch("http://10.0.0.8/", post)).rejects.toBeInstanceOf(FetchRefused);
    expect(sent).toEqual([]);
  });
});
