/** Bindings that exist only in the test pool (vitest.config.ts). */
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    FAKE_MODEL_URL: string;
    FAKE_PUSH_URL: string;
  }
}
