/**
 * web_fetch and its HTML-to-text conversion, in workerd: a fake `fetch` in the ToolContext for
 * pages, redirects, limits and failures; the real fetch against the scripted model's health
 * endpoint on 127.0.0.1 for the private-address switch.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import type { ToolContext } from "../../src/loop/contracts.ts";
import { htmlToText } from "../../src/tools/web/html-text.ts";
import {
  createWebFetch,
  WEB_FETCH_DEFAULT_CHARS,
  WEB_FETCH_MAX_CHARS,
  webFetchTool,
} from "../../src/tools/web/web-fetch.ts";
import { HOSTILE_PAGES } from "../fixtures/hostile-html.ts";
import { toolContext } from "../helpers/tool-context.ts";

type Handler = (url: string, init: RequestInit | undefined) => Response | Promise<Response>;

/** A fake fetch answering from a table of URLs (404 otherwise), recording every call. */
function fakeFetch(routes: Record<string, Handler>) {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    calls.push({ url, init });
    const handler = routes[url];
    return handler
      ? handler(url, init)
      : new Response("nope", { status: 404, statusText: "Not Found" });
  };
  return { fetch: fetcher as typeof fetch, calls };
}

function webContext(
  fetcher: typeof fetch,
  options: { allowPrivate?: boolean; signal?: AbortSignal } = {},
): ToolContext {
  return toolContext({
    taskId: "task-web",
    contextId: "ctx-web",
    agent: "researcher",
    signal: options.signal ?? new AbortController().signal,
    config: { ...loadConfig(env), webFetchAllowPrivate: options.allowPrivate ?? false },
    fetch: fetcher,
  });
}

const html =
  (body: string, headers: Record<string, string> = {}) =>
  () =>
    new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });
const redirect =
  (location: string, status = 302) =>
  () =>
    new Response(null, { status, headers: { location } });

const PAGE = `<!doctype html><html><head><title>The  Edge &amp; You</title>
<style>body { color: red }</style><script>var x = "<p>not text</p>";</script></head>
<body><nav><a href="/home">Home</a></nav>
<h1>Edge computing</h1><p>Workers run <b>close</b> to&nbsp;users &mdash; see
<a href="https://developers.cloudflare.com/workers/">the docs</a>.</p>
<noscript>Enable JavaScript</noscript><svg><title>icon</title><text>svg text</text></svg>
<h2>Why</h2><ul><li>Fast</li><li>Cheap<ol><li>really</li></ol></li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1 &lt; 2</td></tr></table>
<p>Line one<br>Line two &#x1F600; &#169;</p><pre>  keep   this
    indentation</pre></body></html>`;

describe("htmlToText", () => {
  it("keeps readable structure and drops non-content", async () => {
    const { title, text } = htmlToText(PAGE);
    expect(title).toBe("The Edge & You");
    expect(text).toBe(
      [
        "Home",
        "",
        "# Edge computing",
        "",
        "Workers run close to users — see the docs (https://developers.cloudflare.com/workers/).",
        "",
        "## Why",
        "",
        "- Fast",
        "- Cheap",
        "  1. really",
        "",
        "Name | Value",
        "a | 1 < 2",
        "",
        "Line one",
        "Line two 😀 ©",
        "",
        "  keep   this\n    indentation",
      ].join("\n"),
    );
    for (const hidden of ["color", "not text", "Enable JavaScript", "svg text", "icon"]) {
      expect(text).not.toContain(hidden);
    }
  });

  it("handles pages without a title, unclosed tags and links whose text is the URL", async () => {
    const { title, text } = htmlToText(
      '<p>One<p>Two <a href="https://x.test/">https://x.test/</a><div>Three &unknown; &amp',
    );
    expect(title).toBeNull();
    expect(text).toBe("One\n\nTwo https://x.test/\nThree &unknown; &");
  });
});

describe("htmlToText on awkward markup", () => {
  it("copes with quoted '>', bare '<', comments, doctype, CDATA and unclosed elements", () => {
    const cases: Array<[string, string]> = [
      ['<a href="https://x.test/a" title="a>b">link</a> after', "link (https://x.test/a) after"],
      ["<p>1 < 2 and 3 > 2</p>", "1 < 2 and 3 > 2"],
      ["<!DOCTYPE html><!-- hidden --><p>shown</p><![CDATA[gone]]>", "shown"],
      ['<p title="never closed>text</p><p>after</p>', "text\n\nafter"],
      ["<p>before<script>let s = '</p>';", "before"],
      ["<svg/><p>kept</p><svg><svg></svg>x</svg>y", "kept\n\ny"],
      ["<STYLE>p{}</STYLE><P>Upper</P>", "Upper"],
      ["<a href='https://x.test/?a=1&amp;b=2'>q</a>", "q (https://x.test/?a=1&b=2)"],
      ['<a href="javascript:alert(1)">js</a> <a href="/rel">rel</a>', "js rel"],
      ["<p>unfinished <b", "unfinished"],
    ];
    for (const [input, expected] of cases) expect(htmlToText(input).text, input).toBe(expected);
  });

  it("stays linear on large and hostile pages: the same work per character at 500 KB and 2 MB", () => {
    // The work is what the scans examined (ScanWork), not time: a linear converter examines a
    // few characters per input character at any size, a quadratic one four times as many per
    // character at 4x the size. bench/html-text.ts times the same pages.
    for (const [name, page] of Object.entries(HOSTILE_PAGES)) {
      const perChar = (size: number) => {
        const html = page(size);
        const work = { chars: 0 };
        htmlToText(html, work);
        return work.chars / html.length;
      };
      const small = perChar(500_000);
      const large = perChar(2_000_000);
      expect(large, name).toBeLessThanOrEqual(4);
      expect(large, name).toBeLessThanOrEqual(small * 1.1);
    }
  });
});

describe("web_fetch", () => {
  it("returns the URL, status, title and page text, sending its User-Agent", async () => {
    const { fetch, calls } = fakeFetch({ "https://example.com/page": html(PAGE) });
    const result = await webFetchTool.run({ url: "https://example.com/page" }, webContext(fetch));
    expect(result.isError).toBeFalsy();
    expect(result.content).toMatch(
      /^URL: https:\/\/example\.com\/page\nStatus: 200\nTitle: The Edge & You\n\nHome\n\n# Edge computing\n/,
    );
    const headers = new Headers(calls[0]?.init?.headers);
    expect(headers.get("user-agent")).toContain("a2a-edge-harness");
    expect(headers.get("accept")).toContain("text/html");
    expect(calls[0]?.init?.redirect).toBe("manual");
    expect(calls[0]?.init?.signal).toBeInstanceOf(AbortSignal);
  });

  it("follows redirects by hand, checking every hop, and reports the final URL", async () => {
    const { fetch, calls } = fakeFetch({
      "https://a.test/start": redirect("/next", 301),
      "https://a.test/next": redirect("https://b.test/end", 307),
      "https://b.test/end": () =>
        new Response("plain body", { headers: { "content-type": "text/plain" } }),
    });
    const result = await webFetchTool.run({ url: "https://a.test/start" }, webContext(fetch));
    expect(result).toEqual({ content: "URL: https://b.test/end\nStatus: 200\n\nplain body" });
    expect(calls.map((c) => c.url)).toEqual([
      "https://a.test/start",
      "https://a.test/next",
      "https://b.test/end",
    ]);
  });

  it("refuses a redirect to a private address at the hop, without fetching it", async () => {
    for (const target of [
      "http://127.0.0.1:8787/admin",
      "http://169.254.169.254/latest/",
      "file:///etc/passwd",
    ]) {
      const { fetch, calls } = fakeFetch({ "https://a.test/r": redirect(target) });
      const result = await webFetchTool.run({ url: "https://a.test/r" }, webContext(fetch));
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^web_fetch refused a redirect from https:\/\/a\.test\/r: /);
      expect(calls.map((c) => c.url)).toEqual(["https://a.test/r"]);
    }
  });

  it("stops after 5 redirects", async () => {
    const routes: Record<string, Handler> = {};
    for (let i = 0; i < 10; i++) routes[`https://loop.test/${i}`] = redirect(`/${i + 1}`);
    const { fetch, calls } = fakeFetch(routes);
    const result = await webFetchTool.run({ url: "https://loop.test/0" }, webContext(fetch));
    expect(result).toMatchObject({
      isError: true,
      content: expect.stringMatching(/more than 5 redirects/),
    });
    expect(calls).toHaveLength(6);
  });

  it("refuses private and non-http URLs before fetching, unless private hosts are allowed", async () => {
    const { fetch, calls } = fakeFetch({ "http://10.0.0.5/": html("<p>intranet</p>") });
    for (const url of [
      "http://10.0.0.5/",
      "http://localhost/",
      "http://intranet/",
      "http://nas.lan/",
      "ftp://example.com/",
      "http://[::ffff:127.0.0.1]/",
    ]) {
      const result = await webFetchTool.run({ url }, webContext(fetch));
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^web_fetch refused /);
    }
    expect(calls).toHaveLength(0);
    const allowed = await webFetchTool.run(
      { url: "http://10.0.0.5/" },
      webContext(fetch, { allowPrivate: true }),
    );
    expect(allowed.content).toContain("intranet");
  });

  it("reads at most maxBytes of the body and stops the stream", async () => {
    let pulls = 0;
    let cancelled = false;
    const chunk = new TextEncoder().encode(`${"a".repeat(1023)}\n`);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const { fetch } = fakeFetch({
      "https://big.test/": () => new Response(body, { headers: { "content-type": "text/plain" } }),
    });
    const tool = createWebFetch({ maxBytes: 4096 });
    const result = await tool.run(
      { url: "https://big.test/", max_chars: 50_000 },
      webContext(fetch),
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toContain("Note: only the first 4 KB of the body were read.");
    expect(result.content.split("\n\n")[1]).toHaveLength(4096 - 1);
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(10);
  });

  it("refuses non-text content types, naming them, and accepts JSON and untyped text", async () => {
    const { fetch } = fakeFetch({
      "https://f.test/doc.pdf": () =>
        new Response("%PDF", { headers: { "content-type": "application/pdf" } }),
      "https://f.test/img": () => new Response("png", { headers: { "content-type": "image/png" } }),
      "https://f.test/api": () => Response.json({ ok: true }),
      "https://f.test/raw": () =>
        new Response(new TextEncoder().encode("<html><title>T</title><p>hi")),
    });
    const pdf = await webFetchTool.run({ url: "https://f.test/doc.pdf" }, webContext(fetch));
    expect(pdf).toMatchObject({
      isError: true,
      content: expect.stringContaining("is application/pdf"),
    });
    const img = await webFetchTool.run({ url: "https://f.test/img" }, webContext(fetch));
    expect(img).toMatchObject({ isError: true, content: expect.stringContaining("is image/png") });
    const json = await webFetchTool.run({ url: "https://f.test/api" }, webContext(fetch));
    expect(json.content).toBe('URL: https://f.test/api\nStatus: 200\n\n{"ok":true}');
    const raw = await webFetchTool.run({ url: "https://f.test/raw" }, webContext(fetch));
    expect(raw.content).toBe("URL: https://f.test/raw\nStatus: 200\nTitle: T\n\nhi");
  });

  it("reports HTTP errors with their status", async () => {
    const { fetch } = fakeFetch({
      "https://e.test/boom": () =>
        new Response("oops", { status: 503, statusText: "Service Unavailable" }),
    });
    const missing = await webFetchTool.run({ url: "https://e.test/missing" }, webContext(fetch));
    expect(missing).toEqual({
      isError: true,
      content: "web_fetch got HTTP 404 Not Found from https://e.test/missing.",
    });
    const boom = await webFetchTool.run({ url: "https://e.test/boom" }, webContext(fetch));
    expect(boom.content).toBe(
      "web_fetch got HTTP 503 Service Unavailable from https://e.test/boom.",
    );
  });

  it("times out a fetch that never answers, and a body that never ends", async () => {
    const tool = createWebFetch({ timeoutMs: 50 });
    const never = (() => new Promise<Response>(() => {})) as typeof fetch;
    // A fetch that never answers would hold the test to its timeout: the answer is the timeout's.
    const result = await tool.run({ url: "https://slow.test/" }, webContext(never));
    expect(result).toEqual({
      isError: true,
      content: "web_fetch timed out after 0.05 s fetching https://slow.test/.",
    });
    const { fetch } = fakeFetch({
      "https://slow.test/body": () =>
        new Response(
          new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("x")) }),
          {
            headers: { "content-type": "text/plain" },
          },
        ),
    });
    const stalled = await tool.run({ url: "https://slow.test/body" }, webContext(fetch));
    expect(stalled).toMatchObject({ isError: true, content: expect.stringMatching(/timed out/) });
  });

  it("stops when the task is cancelled, and reports network failures", async () => {
    const controller = new AbortController();
    controller.abort();
    const never = (() => new Promise<Response>(() => {})) as typeof fetch;
    const cancelled = await webFetchTool.run(
      { url: "https://x.test/" },
      webContext(never, { signal: controller.signal }),
    );
    expect(cancelled).toEqual({
      isError: true,
      content: "web_fetch of https://x.test/ was cancelled.",
    });
    const broken = (async () => {
      throw new TypeError("Network connection lost.");
    }) as typeof fetch;
    const failed = await webFetchTool.run({ url: "https://x.test/" }, webContext(broken));
    expect(failed).toEqual({
      isError: true,
      content: "web_fetch could not fetch https://x.test/: Network connection lost.",
    });
  });

  it("truncates to max_chars, capped at WEB_FETCH_MAX_CHARS, saying how to read more", async () => {
    const long = "word ".repeat(20_000).trim();
    const { fetch } = fakeFetch({
      "https://long.test/": () => new Response(long, { headers: { "content-type": "text/plain" } }),
    });
    const short = await webFetchTool.run(
      { url: "https://long.test/", max_chars: 100 },
      webContext(fetch),
    );
    expect(short.content).toContain(
      `\n\n[truncated: ${long.length - 100} more characters; call again with max_chars: ${WEB_FETCH_MAX_CHARS} to read more]`,
    );
    const byDefault = await webFetchTool.run({ url: "https://long.test/" }, webContext(fetch));
    expect(byDefault.content).toContain(
      `[truncated: ${long.length - WEB_FETCH_DEFAULT_CHARS} more characters;`,
    );
    const capped = await webFetchTool.run(
      { url: "https://long.test/", max_chars: 1_000_000 },
      webContext(fetch),
    );
    expect(capped.content).toContain(
      `[truncated: ${long.length - WEB_FETCH_MAX_CHARS} more characters; max_chars is at its limit of ${WEB_FETCH_MAX_CHARS}]`,
    );
  });

  it("answers bad input with a tool error", async () => {
    const { fetch } = fakeFetch({});
    for (const input of [
      {},
      { url: 42 },
      { url: "https://x.test/", max_chars: "many" },
      { url: "https://x.test/", max_chars: 0 },
    ]) {
      const result = await webFetchTool.run(input, webContext(fetch));
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^Invalid input for web_fetch: (url|max_chars): /);
    }
  });

  it("fetches 127.0.0.1 for real only when private hosts are allowed", async () => {
    const url = `${env.FAKE_MODEL_URL}/_scripted/health`;
    const refused = await webFetchTool.run({ url }, webContext(fetch));
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining("loopback") });
    const result = await webFetchTool.run({ url }, webContext(fetch, { allowPrivate: true }));
    expect(result.isError, result.content).toBeFalsy();
    expect(result.content).toMatch(new RegExp(`^URL: ${url}\\nStatus: 200\\n\\n\\{"ok":true`));
  });
});
