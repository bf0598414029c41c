/**
 * Which state changes another site may send: the rule alone, for the headers browsers and other
 * clients send (the routes that apply it: test/integration/cross-site.test.ts).
 */
import { describe, expect, it } from "vitest";
import {
  CROSS_SITE_REFUSED,
  crossSiteRefusal,
  type SiteConfig,
} from "../../../src/auth/cross-site.ts";

const config: SiteConfig = { publicUrl: undefined, corsOrigins: ["https://inspector.example"] };
const ACCESS = { "Cf-Access-Jwt-Assertion": "eyJ..." };

/** The rule's answer for `method` with `headers`, at https://harness.example. */
const judge = (method: string, headers: Record<string, string>, site = config) =>
  crossSiteRefusal(
    new Request("https://harness.example/api/admin/reload", { method, headers }),
    site,
  );

describe("cross-site rule", () => {
  it("refuses a cookie-borne state change from another site, by Sec-Fetch-Site or Origin", () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      expect(judge(method, { ...ACCESS, "Sec-Fetch-Site": "cross-site" }), method).toBe(
        CROSS_SITE_REFUSED,
      );
      expect(judge(method, { ...ACCESS, Origin: "https://evil.example" }), method).toBe(
        CROSS_SITE_REFUSED,
      );
    }
    // A sandboxed frame or a data: URL sends the opaque origin.
    expect(judge("POST", { ...ACCESS, Origin: "null" })).toBe(CROSS_SITE_REFUSED);
    expect(judge("POST", { ...ACCESS, "Sec-Fetch-Site": "Cross-Site" })).toBe(CROSS_SITE_REFUSED);
  });

  it("trusts Sec-Fetch-Site over Origin when a browser sends both", () => {
    const sameSite = { "Sec-Fetch-Site": "same-site", Origin: "https://www.harness.example" };
    expect(judge("POST", { ...ACCESS, ...sameSite })).toBeNull();
  });

  it("lets safe methods and an Authorization header through from anywhere", () => {
    const evil = { ...ACCESS, "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" };
    for (const method of ["GET", "HEAD", "OPTIONS"]) expect(judge(method, evil), method).toBeNull();
    expect(judge("POST", { ...evil, Authorization: "Bearer a2a_x" })).toBeNull();
  });

  it("lets an anonymous request through only from a CORS origin, or any origin with *", () => {
    const from = (origin: string) => ({ "Sec-Fetch-Site": "cross-site", Origin: origin });
    expect(judge("POST", from("https://inspector.example"))).toBeNull();
    expect(judge("POST", from("https://evil.example"))).toBe(CROSS_SITE_REFUSED);
    expect(judge("POST", { "Sec-Fetch-Site": "cross-site" })).toBe(CROSS_SITE_REFUSED);
    expect(
      judge("POST", from("https://evil.example"), { ...config, corsOrigins: ["*"] }),
    ).toBeNull();
    expect(judge("POST", { ...ACCESS, ...from("https://inspector.example") })).toBe(
      CROSS_SITE_REFUSED,
    );
  });

  it("counts the request's origin and PUBLIC_URL's as the deployment's own", () => {
    expect(judge("POST", { ...ACCESS, Origin: "https://harness.example" })).toBeNull();
    const proxied = { ...config, publicUrl: "https://agents.example.com/base" };
    expect(judge("POST", { ...ACCESS, Origin: "https://agents.example.com" }, proxied)).toBeNull();
  });
});
