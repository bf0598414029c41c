/** The web_fetch URL policy: every blocked form, the public URLs it lets through, redirects. */
import { describe, expect, it } from "vitest";
import { checkRedirect, checkUrl, parseIPv4, parseIPv6 } from "../../../src/platform/ssrf.ts";

const strict = { allowPrivate: false };
const open = { allowPrivate: true };

/** URLs refused unless private hosts are allowed, by what the refusal says. */
const BLOCKED_BY_REASON: Record<string, string[]> = {
  loopback: [
    "http://127.0.0.1/",
    "http://127.1.2.3:8080/x",
    "http://[::1]/",
    // IPv4 in other notations (URL parsing normalises most, the policy parses the rest; the
    // last of the private ones is one too)
    "http://2130706433/",
    "http://0x7f000001/",
    "http://017700000001/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://127.1/",
  ],
  // Fullwidth letters are normalised to "localhost" by the URL parser (IDNA).
  "loopback name": [
    "http://localhost/",
    "http://LOCALHOST./",
    "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/",
  ],
  "local-only": [
    "http://api.localhost/",
    "http://printer.local/",
    "http://host.docker.internal/",
    "http://box.localdomain/",
    "http://nas.home.arpa/",
    "http://wiki.intranet/",
    "http://db.private/",
    "http://git.corp/",
    "http://router.home/",
    "http://nas.lan./",
  ],
  // No public name has one label: a local resolver, search domain or hosts file answers these.
  "single-label name": [
    "http://intranet/",
    "http://foo:8080/x",
    "http://foo./",
    "http://ip6-localhost/",
    "https://xn--p1ai/",
  ],
  private: [
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://3232235777/",
  ],
  CGNAT: ["http://100.64.0.1/", "http://100.127.255.254/"],
  "unique local": ["http://[fc00::1]/", "http://[fd12:3456::1]/"],
  "link-local": ["http://169.254.1.1/", "http://[fe80::1]/"],
  unspecified: ["http://0.0.0.0/", "http://0/", "http://[::]/"],
  multicast: ["http://224.0.0.1/", "http://[ff02::1]/"],
  reserved: ["http://240.0.0.1/"],
  broadcast: ["http://255.255.255.255/"],
  documentation: ["http://192.0.2.1/", "http://[2001:db8::1]/"],
  "IPv6 form of a loopback": [
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",
    "http://[2002:7f00:1::]/",
  ],
  "IPv6 form of a private": ["http://[::ffff:10.1.2.3]/", "http://[64:ff9b::a00:1]/"],
};

/** The same as `[url, what the refusal says]` rows. */
const BLOCKED = Object.entries(BLOCKED_BY_REASON).flatMap(([reason, urls]) =>
  urls.map((url) => [url, reason] as const),
);

/** URLs refused even with private hosts allowed, and what the refusal says. */
const REFUSED_ALWAYS: Array<[string, RegExp]> = [
  ["ftp://example.com/file", /only http and https/],
  ["file:///etc/passwd", /only http and https/],
  ["gopher://example.com/", /only http and https/],
  ["javascript:alert(1)", /only http and https/],
  ["data:text/html,hi", /only http and https/],
  ["https://user:pass@example.com/", /credentials/],
  ["https://user@example.com/", /credentials/],
  ["not a url", /not a valid absolute URL/],
  ["/relative/path", /not a valid absolute URL/],
  // Cloud metadata is never reached, not even with private hosts allowed (local testing).
  ["http://169.254.169.254/latest/meta-data/", /metadata address/],
  ["http://metadata.google.internal/computeMetadata/v1/", /metadata name/],
  ["http://metadata/", /metadata name/],
  ["http://instance-data/", /metadata name/],
  ["http://[::ffff:169.254.169.254]/", /IPv6 form of the cloud metadata/],
];

const ALLOWED = [
  "https://example.com/",
  "http://example.com:8080/path?q=1#frag",
  "https://en.wikipedia.org/wiki/Cloudflare",
  "http://93.184.216.34/",
  "http://8.8.8.8/",
  "http://172.32.0.1/",
  "http://100.128.0.1/",
  "http://169.253.255.255/",
  "https://[2606:4700:4700::1111]/",
  "http://[::ffff:8.8.8.8]/",
  "https://localhost.example.com/",
  "https://metadata.example.com/",
  "https://home.example.com/",
  "https://lan.example.org/corp",
  "https://example.com./",
];

describe("checkUrl", () => {
  it.each(BLOCKED)("refuses %s unless private hosts are allowed", (url, reason) => {
    const result = checkUrl(url, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toMatch(reason);
      expect(result.reason).toContain("WEB_FETCH_ALLOW_PRIVATE");
    }
    expect(checkUrl(url, open).ok).toBe(true);
  });

  it.each(REFUSED_ALWAYS)("refuses %s even with private hosts allowed", (url, reason) => {
    for (const options of [strict, open]) {
      const result = checkUrl(url, options);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    }
  });

  it.each(ALLOWED)("allows %s", (url) => {
    const result = checkUrl(url, strict);
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(result.url.href).toBe(new URL(url).href);
  });
});

describe("checkRedirect", () => {
  const from = new URL("https://example.com/a/b");

  it("resolves relative locations against the redirecting URL", () => {
    const result = checkRedirect(from, "../c?d=1", strict);
    expect(result.ok && result.url.href).toBe("https://example.com/c?d=1");
  });

  it("refuses a hop to a private address, a bad scheme or nowhere", () => {
    expect(checkRedirect(from, "http://127.0.0.1:9000/", strict)).toMatchObject({ ok: false });
    expect(checkRedirect(from, "//169.254.169.254/", strict)).toMatchObject({ ok: false });
    expect(checkRedirect(from, "file:///etc/passwd", open)).toMatchObject({ ok: false });
    expect(checkRedirect(from, null, strict)).toMatchObject({ ok: false });
    expect(checkRedirect(from, "http://127.0.0.1:9000/", open)).toMatchObject({ ok: true });
  });
});

describe("address parsers", () => {
  it("parses IPv4 the way inet_aton does", () => {
    for (const loopback of ["127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.01"])
      expect(parseIPv4(loopback), loopback).toBe(0x7f000001);
    for (const notIPv4 of ["256.0.0.1", "1.2.3.4.5", "example.com", "08.1.1.1"])
      expect(parseIPv4(notIPv4), notIPv4).toBeNull();
  });

  it("parses IPv6 with compression and embedded IPv4", () => {
    expect(parseIPv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6("1::2::3")).toBeNull();
    expect(parseIPv6("12345::")).toBeNull();
  });
});
