import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/config.ts";

describe("configuration", () => {
  it("applies the documented defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      defaultAgent: "assistant",
      publicUrl: undefined,
      modelMode: "unconfigured",
      maxBodyBytes: 1_048_576,
      maxTurns: 500,
      modelIdleTimeoutMs: 60_000,
      modelMaxRetries: 4,
      modelRetryBaseMs: 1_000,
      sseKeepaliveMs: 15_000,
      cardMaxAgeSeconds: 300,
    });
  });

  it("chooses the model source from the key and SCRIPTED_MODEL", () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: "k" }).modelMode).toBe("anthropic");
    expect(loadConfig({ SCRIPTED_MODEL: "auto" }).modelMode).toBe("scripted");
    expect(loadConfig({ SCRIPTED_MODEL: "auto", ANTHROPIC_API_KEY: "k" }).modelMode).toBe(
      "anthropic",
    );
    expect(loadConfig({ SCRIPTED_MODEL: "on", ANTHROPIC_API_KEY: "k" }).modelMode).toBe("scripted");
    expect(loadConfig({ ANTHROPIC_API_KEY: "  " }).modelMode).toBe("unconfigured");
  });

  it("trims PUBLIC_URL's trailing slash and treats empty strings as unset", () => {
    expect(loadConfig({ PUBLIC_URL: "https://a.example/" }).publicUrl).toBe("https://a.example");
    expect(loadConfig({ PUBLIC_URL: "", A2A_API_KEY: "" }).a2aApiKey).toBeUndefined();
  });

  it("reads the retrieval limits: SEARCH_MAX_RESULTS (3, 1-20) and the per-tool call caps", () => {
    expect(loadConfig({}).searchMaxResults).toBe(3);
    expect(loadConfig({ SEARCH_MAX_RESULTS: "7" }).searchMaxResults).toBe(7);
    for (const bad of ["0", "21", "2.5", "many"])
      expect(() => loadConfig({ SEARCH_MAX_RESULTS: bad }), bad).toThrow(/SEARCH_MAX_RESULTS/);
    expect(loadConfig({ SEARCH_MAX_CALLS: "0" }).toolCallCaps.search).toBe(0);
    expect(() => loadConfig({ FETCH_DOCUMENT_MAX_CALLS: "-1" })).toThrow(
      /FETCH_DOCUMENT_MAX_CALLS/,
    );
  });

  it("caps push notification configs per task at MAX_PUSH_CONFIGS_PER_TASK (10, at least 1)", () => {
    expect(loadConfig({}).maxPushConfigsPerTask).toBe(10);
    expect(loadConfig({ MAX_PUSH_CONFIGS_PER_TASK: "3" }).maxPushConfigsPerTask).toBe(3);
    expect(() => loadConfig({ MAX_PUSH_CONFIGS_PER_TASK: "0" })).toThrow(
      /MAX_PUSH_CONFIGS_PER_TASK/,
    );
  });

  it("names the variable when a value is unusable", () => {
    expect(() => loadConfig({ MAX_TURNS: "many" })).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_TURNS: "many" })).toThrow(/MAX_TURNS/);
    expect(() => loadConfig({ SCRIPTED_MODEL: "maybe" })).toThrow(/SCRIPTED_MODEL/);
    expect(() => loadConfig({ PUBLIC_URL: "not a url" })).toThrow(/PUBLIC_URL/);
  });
});
