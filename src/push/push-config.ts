/**
 * A push notification config as the harness keeps it, and its checks at the edge: an http(s) URL
 * that passes the SSRF policy (private, loopback, link-local and metadata hosts are refused unless
 * WEB_FETCH_ALLOW_PRIVATE=true), a token and credentials of bounded size. Converts from and to the
 * SDK's v1.0 `TaskPushNotificationConfig` (the v0.3 dialect is translated to it by the SDK).
 */
import { z } from "zod";
import { checkUrl } from "../platform/ssrf.ts";
import type { WirePushConfig } from "../protocol/wire.ts";
import { lazy } from "../utils/lazy.ts";

/** What a refused non-public receiver is told: the deployment's switch, and the local fix. */
const PUSH_PUBLIC_ONLY =
  "push notifications go only to public hosts; for a receiver on your machine, run the harness with npm run dev -- --var WEB_FETCH_ALLOW_PRIVATE:true (an operator sets WEB_FETCH_ALLOW_PRIVATE)";

/** The protocol version whose shape a config's notifications take. */
export type PushProtocol = "1.0" | "0.3";

/** A stored push config. */
export interface PushConfig {
  id: string;
  url: string;
  token: string | null;
  authScheme: string | null;
  authCredentials: string | null;
  protocol: PushProtocol;
  createdAt: string;
}

/** A checked config from a client; `id` null lets the task choose one. */
export type NewPushConfig = Omit<PushConfig, "createdAt" | "id"> & { id: string | null };

const configInput = lazy(() =>
  z.object({
    id: z
      .string()
      .max(128, "at most 128 characters")
      .regex(/^[A-Za-z0-9._:-]*$/, "letters, digits, . _ : -")
      .optional(),
    url: z.string().min(1, "is required").max(2048, "at most 2048 characters"),
    token: z.string().max(1024, "at most 1024 characters").optional(),
    authentication: z
      .object({
        scheme: z
          .string()
          .max(64)
          .regex(/^[A-Za-z][A-Za-z0-9._-]*$/, "an HTTP auth scheme such as Bearer"),
        credentials: z.string().max(4096).optional(),
      })
      .optional(),
  }),
);

/** A config from a client, checked: the fields to store, or why it is refused. */
export type CheckedConfig = { ok: true; config: NewPushConfig } | { ok: false; reason: string };

/**
 * Checks a config a client sent (the SDK's v1.0 object: `{id?, url, token?, authentication?:
 * {scheme, credentials?}}`; empty strings count as absent).
 */
export function checkPushConfig(
  raw: unknown,
  protocol: PushProtocol,
  allowPrivate: boolean,
): CheckedConfig {
  const input = (raw ?? {}) as Record<string, unknown>;
  const blank = (v: unknown) => (v === "" || v === null ? undefined : v);
  const auth = input.authentication as Record<string, unknown> | undefined | null;
  const parsed = configInput().safeParse({
    id: blank(input.id),
    url: input.url,
    token: blank(input.token),
    authentication:
      auth && blank(auth.scheme) !== undefined
        ? { scheme: auth.scheme, credentials: blank(auth.credentials) }
        : undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `push config ${issue?.path.join(".") || ""}: ${issue?.message}` };
  }
  const url = checkUrl(parsed.data.url, { allowPrivate, publicOnly: PUSH_PUBLIC_ONLY });
  if (!url.ok) return { ok: false, reason: `push notification URL refused: ${url.reason}` };
  return {
    ok: true,
    config: {
      id: parsed.data.id ?? null,
      url: url.url.toString(),
      token: parsed.data.token ?? null,
      authScheme: parsed.data.authentication?.scheme ?? null,
      authCredentials: parsed.data.authentication?.credentials ?? null,
      protocol,
    },
  };
}

/** The config in the SDK's v1.0 wire form. */
export function toWireConfig(taskId: string, config: PushConfig): WirePushConfig {
  return {
    id: config.id,
    taskId,
    url: config.url,
    ...(config.token !== null ? { token: config.token } : {}),
    ...(config.authScheme !== null
      ? {
          authentication: {
            scheme: config.authScheme,
            ...(config.authCredentials !== null ? { credentials: config.authCredentials } : {}),
          },
        }
      : {}),
  };
}
