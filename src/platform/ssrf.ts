/**
 * Outbound URL policy for web_fetch (server-side request forgery guard). Pure: no I/O.
 *
 * `checkUrl` accepts http and https URLs without credentials, and (unless `allowPrivate`, i.e.
 * WEB_FETCH_ALLOW_PRIVATE) refuses hosts that are, as IP literals or well-known names: loopback,
 * private (RFC 1918, CGNAT, IPv6 ULA), link-local, unspecified, multicast, broadcast, reserved or
 * documentation ranges, IPv4 written in decimal/octal/hex forms or inside IPv6 (mapped,
 * compatible, NAT64, 6to4), `localhost` and `*.localhost`, single-label names (`http://intranet/`:
 * no public DNS name has one label; a local resolver, search domain or hosts file answers it),
 * local-only suffixes (`.local`, `.internal`, `.localdomain`, `.home.arpa`, and the private-use
 * TLDs of RFC 6762 Appendix G: `.intranet`, `.private`, `.corp`, `.home`, `.lan`) and the cloud
 * metadata names. The cloud metadata address and names are refused even with `allowPrivate`.
 * `checkRedirect` applies the same policy to every redirect hop (web_fetch follows at most 5).
 *
 * Limits, stated plainly: a Worker cannot resolve DNS before it fetches, so a public name that
 * resolves to a private address (or DNS rebinding), or a dotted name a hosts file maps to one, is
 * NOT caught here. On Cloudflare that is
 * acceptable because a Worker's egress goes out through Cloudflare's network, which does not
 * reach the deployment's private networks; locally (wrangler dev) it is not.
 */

/** Outcome of a URL check: the parsed URL, or why it is refused. */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Options of the policy. */
export interface UrlPolicy {
  /** Allow private, loopback and other non-public hosts (WEB_FETCH_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /**
   * What a refusal of a non-public host adds: who reaches only public hosts and how that is
   * changed (default: web_fetch's, for the model).
   */
  publicOnly?: string;
}

const BLOCKED_NAMES = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "instance-data",
  "instance-data.ec2.internal",
]);
/** Suffixes only a local resolver answers (RFC 6761, mDNS, ICANN's `.internal`, RFC 6762 App. G). */
const BLOCKED_SUFFIXES = [
  ".localhost",
  ".local",
  ".internal",
  ".localdomain",
  ".home.arpa",
  ".intranet",
  ".private",
  ".corp",
  ".home",
  ".lan",
];

/** IPv4 ranges that are not the public internet: [first octets as number, prefix, what]. */
const V4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "an unspecified ('this network') address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a private (CGNAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "a reserved address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a reserved address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a reserved (benchmarking) address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

const WEB_FETCH_HINT =
  "web_fetch only reaches public hosts (an operator can set WEB_FETCH_ALLOW_PRIVATE)";
const refuse = (reason: string): UrlCheck => ({ ok: false, reason });

/** Checks a URL web_fetch is asked to fetch. */
export function checkUrl(url: string, options: UrlPolicy): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return refuse(`not a valid absolute URL: ${url.slice(0, 200)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return refuse(`only http and https URLs can be fetched, not ${parsed.protocol}`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return refuse("URLs with credentials (user:password@) are refused");
  }
  const problem = hostProblem(parsed.hostname);
  // Cloud metadata is refused even where private hosts are allowed (they are for local testing).
  if (problem !== null && /metadata/.test(problem))
    return refuse(`${parsed.hostname} is ${problem}; it is never fetched`);
  if (options.allowPrivate) return { ok: true, url: parsed };
  const hint = options.publicOnly ?? WEB_FETCH_HINT;
  return problem ? refuse(`${parsed.hostname} is ${problem}; ${hint}`) : { ok: true, url: parsed };
}

/**
 * Checks one redirect hop: resolves `location` against the URL that answered with the redirect,
 * then applies {@link checkUrl}.
 */
export function checkRedirect(from: URL, location: string | null, options: UrlPolicy): UrlCheck {
  if (location === null || location.trim() === "") {
    return refuse(`redirect from ${from.href} has no Location header`);
  }
  let next: URL;
  try {
    next = new URL(location.trim(), from);
  } catch {
    return refuse(`redirect from ${from.href} to an invalid URL: ${location.slice(0, 200)}`);
  }
  return checkUrl(next.href, options);
}

/** Why a hostname (as `URL.hostname` gives it) is not public, or null when it looks public. */
export function hostProblem(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  if (host === "") return "an empty host";
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = parseIPv6(host.slice(1, -1));
    return groups ? v6Problem(groups) : "an unparseable IPv6 address";
  }
  const v4 = parseIPv4(host);
  if (v4 !== null) return v4Problem(v4);
  if (BLOCKED_NAMES.has(host)) {
    return host === "localhost" ? "a loopback name" : "a cloud metadata name";
  }
  if (BLOCKED_SUFFIXES.some((suffix) => host.endsWith(suffix))) return "a local-only name";
  // After the metadata names: `metadata` and `instance-data` are single labels that stay refused.
  if (!host.includes(".")) return "a single-label name (answered by a local resolver, not DNS)";
  return null;
}

/** The problem with an IPv4 address (as a 32-bit number), or null when it is public. */
function v4Problem(address: number): string | null {
  if (address === 0xffffffff) return "the broadcast address";
  if (address === 0xa9fea9fe) return "the cloud metadata address";
  for (const [base, prefix, what] of V4_RANGES) {
    const start = parseIPv4(base) ?? 0;
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    if ((address & mask) >>> 0 === start) return what;
  }
  return null;
}

/** The problem with an IPv6 address (8 groups of 16 bits), or null when it is public. */
function v6Problem(g: number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = ((g6 << 16) | g7) >>> 0;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return "the unspecified address";
  if (zeroTo(7) && g7 === 1) return "a loopback address";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated)
  if (zeroTo(5) && (g5 === 0xffff || g5 === 0)) return embeddedProblem(embedded);
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return embeddedProblem(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return embeddedProblem(embedded); // NAT64 64:ff9b::/96
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "a local-use NAT64 address";
  if (g0 === 0x2002) return embeddedProblem(((g1 << 16) | g2) >>> 0); // 6to4
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "a discard-only address";
  if (g0 === 0x2001 && g1 === 0xdb8) return "a documentation address";
  if ((g0 & 0xfe00) === 0xfc00) return "a private (unique local) address";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g0 & 0xff00) === 0xff00) return "a multicast address";
  return null;
}

function embeddedProblem(v4: number): string | null {
  const problem = v4Problem(v4);
  return problem ? `an IPv6 form of ${problem}` : null;
}

/**
 * Parses IPv4 as inet_aton does: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x), the
 * last part filling the remaining bytes ("2130706433", "0x7f.1", "017700000001"). Null when the
 * host is not an IPv4 literal in any of those forms.
 */
export function parseIPv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : Number.parseInt(part, 16);
    else if (/^0[0-7]+$/.test(part)) value = Number.parseInt(part, 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  let address = last;
  values.forEach((v, i) => {
    address += v * 256 ** (3 - i);
  });
  return address >>> 0;
}

/** Parses an IPv6 literal (without brackets, with an optional zone) into 8 groups, or null. */
export function parseIPv6(text: string): number[] | null {
  const address = text.split("%")[0] ?? "";
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const expand = (half: string): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(piece) ? parseIPv4(piece) : null;
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(Number.parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = expand(halves[0] ?? "");
  const tail = halves.length === 2 ? expand(halves[1] ?? "") : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}
