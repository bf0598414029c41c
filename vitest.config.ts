/**
 * Unit and integration tests, run inside workerd by the Workers Vitest pool.
 * The scripted Messages API runs in Node (test/global-setup.ts) on 127.0.0.1; its port is
 * injected here so the Worker under test reaches it through the real @anthropic-ai/sdk path.
 * Quiet when green: wrangler logs only errors while it reads wrangler.toml (its note that the
 * ANTHROPIC_API_KEY secret is missing is moot: the bindings below set it), a dependency's broken
 * source map is not reported, and a passed test's console output is dropped (the failures some
 * tests provoke on purpose log what a real failure would).
 */
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { kCurrentWorker } from "miniflare";
import { defineConfig } from "vitest/config";
import { quietDependencySourceMaps } from "./test/quiet-source-maps.ts";

process.env.WRANGLER_LOG ??= "error";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      quietDependencySourceMaps(),
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          serviceBindings: { HARNESS_SELF: { name: kCurrentWorker } },
          bindings: {
            TEST_MIGRATIONS: migrations,
            FAKE_MODEL_URL: `http://127.0.0.1:${inject<number>("fakeModelPort")}`,
            ANTHROPIC_BASE_URL: `http://127.0.0.1:${inject<number>("fakeModelPort")}`,
            ANTHROPIC_API_KEY: "test-key",
            A2A_API_KEY: "",
            // Most tests call as anonymous; auth tests call the Worker with ALLOW_ANONYMOUS off.
            ALLOW_ANONYMOUS: "true",
            // Limits off for the suite (tests share one IP); the limit tests turn them on per call.
            RATE_MESSAGES_PER_MINUTE: "0",
            RATE_ANONYMOUS_PER_MINUTE: "0",
            MAX_CONCURRENT_STREAMS: "0",
            // Failed credentials too: the auth tests fail on purpose, from one (absent) IP.
            AUTH_FAILURES_PER_MINUTE: "0",
            // No default budgets either: the suite spends millions of (scripted) tokens a run;
            // the budget tests set a user's own budget.
            BUDGET_TASK_TOKENS: "0",
            BUDGET_DAY_TOKENS: "0",
            BUDGET_MONTH_TOKENS: "0",
            MODEL_RETRY_BASE_MS: "5",
            // Room for the scripted model, which shares vitest's busy Node process; the watchdog
            // tests stall for longer than this.
            MODEL_IDLE_TIMEOUT_MS: "1500",
            SSE_KEEPALIVE_MS: "200",
            CONTEXT_TOKEN_BUDGET: "12000",
            ROLLBACK_ON_FAILURE: "true",
            TOOL_CALL_CAPS:
              "web_fetch:10,fetch_document:10,search:5,grep_files:10,a2a_call:10,a2a_call_streaming:10,a2a_discover:10,progress_read:2",
            ADMIN_API_KEY: "test-admin-key",
            // Not the built-in default, so a test sees an agent that names no model run on it.
            DEFAULT_MODEL: "claude-opus-4-6",
            // Remote A2A agents for the agent-network tests: this Worker itself, reached through a
            // service binding (HARNESS_SELF) as Workers on one account reach each other, calling as
            // the admin key (a remote sub-agent shares the scratchpad with a parent of the same
            // principal); plus one agent that is down.
            A2A_AGENTS: JSON.stringify({
              "remote-researcher": {
                service: "HARNESS_SELF",
                url: "https://self.test/agents/researcher/",
                description: "The researcher, served by another deployment",
                authSecret: "ADMIN_API_KEY",
              },
              "remote-writer": {
                service: "HARNESS_SELF",
                url: "https://self.test/agents/writer/",
                authSecret: "ADMIN_API_KEY",
              },
              down: { url: "http://127.0.0.1:9/", description: "An agent that is down" },
            }),
            AGENT_CALL_RULES: JSON.stringify({ "deep-thinker": ["researcher"] }),
            // The researcher's MCP server (test/fake-mcp), which requires this bearer token.
            DOCS_MCP_URL: inject<string>("fakeMcpUrl"),
            DOCS_MCP_TOKEN: "mcp-test-token",
            // The push notification receiver (test/fake-push) is on 127.0.0.1; the SSRF refusal
            // test calls the Worker with this off.
            FAKE_PUSH_URL: inject<string>("fakePushUrl"),
            WEB_FETCH_ALLOW_PRIVATE: "true",
            PUSH_RETRY_BASE_MS: "100",
            // The local limit guard (src/platform/limit-guard.ts): Cloudflare's limits, on in
            // every test; a breach fails the test (test/setup.ts). `CF_PLAN=free npm run
            // test:unit` holds the suite to Workers Free's.
            CF_PLAN: process.env.CF_PLAN || "paid",
            PUSH_MAX_ATTEMPTS: "4",
          },
        },
      })),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/e2e/**", "node_modules/**"],
      globalSetup: ["./test/global-setup.ts"],
      setupFiles: ["./test/setup.ts"],
      // Generous: `npm test` must pass beside CPU hogs; a test that passes returns as soon as its
      // polls hold (test/helpers/until.ts, 30 s each), only a failing one waits this long.
      testTimeout: 60_000,
      // One workerd per worker for all its files: ~4 s of start-up per file otherwise. Two
      // workers, each with its own workerd and storage (the scripted model is shared; tests use
      // unique ids): the suite mostly waits on the model and timers, so two halve its time on two
      // cores (1,136 tests: 211 s with one, 130 s with two, 111 s with three).
      isolate: false,
      maxWorkers: 2,
      silent: "passed-only" as const,
      // Request log lines are noise in test output; failures still print everything else.
      onConsoleLog: (log: string) => !log.includes('"msg":"request"'),
    },
  };
});
