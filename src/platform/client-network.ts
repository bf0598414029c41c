/**
 * The client a per-address limit counts, from `CF-Connecting-IP`: an IPv4 address as it is, an
 * IPv6 address by its /64 (one subscriber's network: a host there can take any of its 2^64
 * addresses, so counting full addresses would give it a fresh limit per request), an IPv4 address
 * written as IPv6 (`::ffff:a.b.c.d`) as that IPv4 address, and anything else (no header, a value
 * that is no address) as given, cut to 64 characters. Pure.
 */
import { parseIPv6 } from "./ssrf.ts";

const hex = (group: number) => group.toString(16);

/** The network key of client address `ip` (see the file's comment); null stays null. */
export function clientNetwork(ip: string | null): string | null {
  if (ip === null) return null;
  const groups = ip.includes(":") ? parseIPv6(ip.trim()) : null;
  if (!groups) return ip.slice(0, 64);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff)
    return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join(".");
  return `${[g0, g1, g2, g3].map((g) => hex(g ?? 0)).join(":")}::/64`;
}
