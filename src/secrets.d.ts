/**
 * Optional secrets, added to the generated `Env` (worker-configuration.d.ts). They are not in
 * wrangler.toml's `secrets.required`, because a required secret that is unset fails a deploy.
 */
declare namespace Cloudflare {
  interface Env {
    /** One shared key accepted as the user `api-key`; setting it closes anonymous access. */
    A2A_API_KEY?: string;
    /** A key that acts as an admin (`admin-key`). */
    ADMIN_API_KEY?: string;
    /**
     * The Agent Card signing key: a private JWK (JSON) with `kid` and `alg` (ES256 recommended);
     * when set, every card carries a signature and /.well-known/jwks.json its public key.
     */
    AGENT_CARD_SIGNING_KEY?: string;
    /** Bearer token of the researcher's documentation MCP server (DOCS_MCP_URL). */
    DOCS_MCP_TOKEN?: string;
    /** Headers of OTLP trace export (`key=value,...`, values URL-encoded), e.g. a collector's API key. */
    OTEL_EXPORTER_OTLP_HEADERS?: string;
    /** Headers of the traces export only, over OTEL_EXPORTER_OTLP_HEADERS name by name. */
    OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string;
  }
}
