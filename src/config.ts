/**
 * Runtime configuration: every wrangler var and secret the harness reads, parsed once with zod,
 * with the defaults documented in README.md#configuration. Pure: no I/O.
 */
import { z } from "zod";

const int = (fallback: number, min = 0) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? fallback : Number(v)))
    .pipe(z.number().int().min(min));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== "" ? v.trim() : undefined));

const ConfigSchema = z.object({
  DEFAULT_AGENT: optionalString.transform((v) => v ?? "assistant"),
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  ANTHROPIC_BASE_URL: optionalString.pipe(z.url().optional()),
  ANTHROPIC_API_KEY: optionalString,
  SCRIPTED_MODEL: optionalString.pipe(z.enum(["off", "auto", "on"]).optional()),
  A2A_API_KEY: optionalString,
  MAX_BODY_BYTES: int(1_048_576, 1024),
  MAX_TURNS: int(50, 1),
  MODEL_IDLE_TIMEOUT_MS: int(60_000, 50),
  MODEL_MAX_RETRIES: int(4, 0),
  MODEL_RETRY_BASE_MS: int(1_000, 1),
  SSE_KEEPALIVE_MS: int(15_000, 50),
  CARD_MAX_AGE_SECONDS: int(300, 0),
});

/** How the model is reached: Claude through the API, or the scripted local model (no key). */
export type ModelMode = "anthropic" | "scripted" | "unconfigured";

/** The parsed configuration. */
export interface Config {
  defaultAgent: string;
  publicUrl: string | undefined;
  anthropicBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  modelMode: ModelMode;
  a2aApiKey: string | undefined;
  maxBodyBytes: number;
  maxTurns: number;
  modelIdleTimeoutMs: number;
  modelMaxRetries: number;
  modelRetryBaseMs: number;
  sseKeepaliveMs: number;
  cardMaxAgeSeconds: number;
}

/** Raised when a var holds a value the harness cannot use; names the var. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const cache = new WeakMap<object, Config>();

/**
 * Parses the Worker's vars and secrets. Memoized per `env` object, so a request pays for it once.
 * `SCRIPTED_MODEL`: `off` (default) fails tasks without a key, `auto` uses the scripted model when
 * no `ANTHROPIC_API_KEY` is set (what `npm run dev` passes), `on` always uses it.
 */
export function loadConfig(env: object): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `configuration: ${String(issue?.path.join(".") ?? "?")}: ${issue?.message ?? "invalid"}`,
    );
  }
  const v = parsed.data;
  const scripted = v.SCRIPTED_MODEL ?? "off";
  const modelMode: ModelMode =
    scripted === "on" || (scripted === "auto" && !v.ANTHROPIC_API_KEY)
      ? "scripted"
      : v.ANTHROPIC_API_KEY
        ? "anthropic"
        : "unconfigured";
  const config: Config = {
    defaultAgent: v.DEFAULT_AGENT,
    publicUrl: v.PUBLIC_URL?.replace(/\/+$/, ""),
    anthropicBaseUrl: v.ANTHROPIC_BASE_URL,
    anthropicApiKey: v.ANTHROPIC_API_KEY,
    modelMode,
    a2aApiKey: v.A2A_API_KEY,
    maxBodyBytes: v.MAX_BODY_BYTES,
    maxTurns: v.MAX_TURNS,
    modelIdleTimeoutMs: v.MODEL_IDLE_TIMEOUT_MS,
    modelMaxRetries: v.MODEL_MAX_RETRIES,
    modelRetryBaseMs: v.MODEL_RETRY_BASE_MS,
    sseKeepaliveMs: v.SSE_KEEPALIVE_MS,
    cardMaxAgeSeconds: v.CARD_MAX_AGE_SECONDS,
  };
  cache.set(env, config);
  return config;
}
