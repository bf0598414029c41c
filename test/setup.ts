/**
 * Per-file setup inside workerd: apply the D1 migrations to the test database, and fail any test
 * during which the Worker or an object went over one of Cloudflare's limits (the local limit
 * guard, CF_PLAN: src/platform/limit-guard.ts), even where the code it ran caught the error.
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { clearLimitBreaches, limitBreaches } from "../src/platform/invocation-budget.ts";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

afterEach(() => {
  const breaches = limitBreaches();
  clearLimitBreaches();
  if (breaches.length > 0)
    throw new Error(`over Cloudflare's limits during this test:\n${breaches.join("\n")}`);
});
