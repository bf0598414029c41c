/**
 * The client a per-address limit counts (src/platform/client-network.ts): IPv4 by address, IPv6 by
 * its /64 however it is written, IPv4 written as IPv6 as IPv4, anything else as given.
 */
import { describe, expect, it } from "vitest";
import { clientNetwork } from "../../../src/platform/client-network.ts";

describe("clientNetwork", () => {
  it("keys IPv6 by its /64, whatever the spelling", () => {
    const network = "2001:db8:85a3:8d3::/64";
    for (const ip of [
      "2001:db8:85a3:8d3:1319:8a2e:370:7348",
      "2001:0db8:85a3:08d3::1",
      "2001:DB8:85A3:8D3:0:0:0:ffff",
      "2001:db8:85a3:8d3::",
    ])
      expect(clientNetwork(ip), ip).toBe(network);
    expect(clientNetwork("2001:db8:85a3:8d4::1")).toBe("2001:db8:85a3:8d4::/64");
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
  });

  it("keeps IPv4 (also written as IPv6) by address, and other values as given", () => {
    expect(clientNetwork("203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(clientNetwork("ip-test")).toBe("ip-test");
    expect(clientNetwork("not:an:address")).toBe("not:an:address");
    expect(clientNetwork("x".repeat(100))).toBe("x".repeat(64));
    expect(clientNetwork(null)).toBeNull();
  });
});
