/**
 * Which state-changing requests another site's page may make a visitor's browser send. A page on
 * another site can POST or DELETE here without a CORS preflight when the request has no body (a
 * revoke, a reload, a cancel), and the browser attaches the visitor's cookies: behind Cloudflare
 * Access, whose cookie Access turns into the `Cf-Access-Jwt-Assertion` header, that request would
 * act as the visitor. The rule, applied by `authenticate` before any credential is checked:
 *
 * - Safe methods (GET, HEAD, OPTIONS) and requests with an `Authorization` header pass: a page can
 *   set that header only through a preflight, which CORS_ORIGINS governs (platform/cors.ts).
 * - A request comes from another site when the browser says so (`Sec-Fetch-Site: cross-site`), or,
 *   from a browser that sends no `Sec-Fetch-Site`, when its `Origin` is neither the request's own
 *   origin nor PUBLIC_URL's. Same-site pages (the site's other subdomains) and clients that are not
 *   browsers (no `Sec-Fetch-Site`, no `Origin`: the CLI, SDKs, servers) are not another site.
 * - From another site, a request that carries Access's assertion is refused whatever its origin:
 *   CORS here never allows credentials, so no page elsewhere has a legitimate cookie-borne call. A
 *   request with no credential at all (an anonymous browser client of a public agent) passes only
 *   from an origin in CORS_ORIGINS.
 *
 * Webhooks are outside the rule: their route does not authenticate, a delivery is signed. Pure.
 */

/** Methods that change nothing, which any site may send. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** What the rule reads of the deployment: PUBLIC_URL and CORS_ORIGINS. */
export interface SiteConfig {
  publicUrl: string | undefined;
  corsOrigins: readonly string[];
}

/** The 403 message for a refused request. */
export const CROSS_SITE_REFUSED =
  "Forbidden: a state-changing request from another site must send Authorization: Bearer <token> (cookies are not accepted across sites)";

/** The origins that are this deployment's own: the request's, and PUBLIC_URL's. */
function ownOrigins(request: Request, publicUrl: string | undefined): string[] {
  const own = [new URL(request.url).origin];
  if (publicUrl && URL.canParse(publicUrl)) own.push(new URL(publicUrl).origin);
  return own;
}

/** Whether a browser sent the request from a page on another site. */
function fromAnotherSite(request: Request, own: readonly string[]): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null) return site.trim().toLowerCase() === "cross-site";
  const origin = request.headers.get("Origin");
  return origin !== null && !own.includes(origin);
}

/** Whether `origin` is one CORS_ORIGINS lets browser clients call from. */
function corsAllowed(origin: string | null, corsOrigins: readonly string[]): boolean {
  return origin !== null && (corsOrigins.includes("*") || corsOrigins.includes(origin));
}

/** Why the request is refused as another site's (the 403 message), or null when it may proceed. */
export function crossSiteRefusal(request: Request, config: SiteConfig): string | null {
  if (SAFE_METHODS.has(request.method) || request.headers.has("Authorization")) return null;
  if (!fromAnotherSite(request, ownOrigins(request, config.publicUrl))) return null;
  const cookieBorne = request.headers.has("Cf-Access-Jwt-Assertion");
  if (!cookieBorne && corsAllowed(request.headers.get("Origin"), config.corsOrigins)) return null;
  return CROSS_SITE_REFUSED;
}
