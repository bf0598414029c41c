/**
 * Configuration of the tasks that events and time start: named webhooks (`WEBHOOKS`) and
 * scheduled runs (`SCHEDULES`), both JSON objects keyed by name. Parsed with zod once per value;
 * a value the harness cannot use throws naming the variable and the field.
 */
import { Cron } from "croner";
import { z } from "zod";
import { lazy } from "../utils/lazy.ts";

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const agentName = lazy(() => z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, "an agent name"));
const ownerId = lazy(() => z.string().regex(/^[a-z0-9][a-z0-9._@-]{0,63}$/, "a user id"));
const secretName = lazy(() =>
  z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "the name of a secret (upper case)"),
);

/** Where a trigger's task reports: a push notification config, given inline with the send. */
const pushTarget = lazy(() =>
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    token: z.string().max(1024).optional(),
    authentication: z
      .strictObject({
        scheme: z.string().min(1).max(64),
        credentials: z.string().max(4096).optional(),
      })
      .optional(),
    /** Which protocol version's shape the notifications take (default 1.0). */
    protocol: z.enum(["1.0", "0.3"]).default("1.0"),
  }),
);
export type PushTarget = z.infer<ReturnType<typeof pushTarget>>;

const webhook = lazy(() =>
  z.strictObject({
    agent: agentName(),
    owner: ownerId(),
    /**
     * The message: `{{a.b.0.c}}` fields of the payload, `{{$event}}`, `{{$delivery}}`,
     * `{{$json}}`.
     */
    prompt: z.string().min(1).max(20_000),
    /** The secret (its binding name) the sender signs with. */
    secret: secretName(),
    /**
     * `github`: X-Hub-Signature-256; `generic`: X-Signature sha256=<hex> over
     * "<X-Timestamp>.<body>".
     */
    signature: z.enum(["github", "generic"]).default("github"),
    /** GitHub events that start a task (X-GitHub-Event); others are acknowledged and ignored. */
    events: z.array(z.string().min(1).max(100)).max(50).optional(),
    push: pushTarget().optional(),
  }),
);
export type WebhookConfig = z.infer<ReturnType<typeof webhook>> & { name: string };

const cronExpression = lazy(() =>
  z.string().refine((expr) => {
    try {
      new Cron(expr, { paused: true });
      return true;
    } catch {
      return false;
    }
  }, "not a cron expression (minute hour day-of-month month day-of-week)"),
);

const schedule = lazy(() =>
  z.strictObject({
    cron: cronExpression(),
    agent: agentName(),
    owner: ownerId(),
    prompt: z.string().min(1).max(20_000),
    /** IANA zone the cron expression is read in (default TIME_ZONE, else UTC). */
    timeZone: z.string().optional(),
    push: pushTarget().optional(),
  }),
);
export type ScheduleConfig = z.infer<ReturnType<typeof schedule>> & { name: string };

/** Raised for an unusable WEBHOOKS or SCHEDULES value. */
export class TriggerConfigError extends Error {
  override readonly name = "ConfigError";
}

function parseNamed<T>(variable: string, raw: string | undefined, schema: z.ZodType<T>) {
  const out: Record<string, T & { name: string }> = {};
  if (raw === undefined || raw.trim() === "") return out;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new TriggerConfigError(`configuration: ${variable}: not valid JSON`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new TriggerConfigError(`configuration: ${variable}: expected an object of name -> entry`);
  for (const [name, entry] of Object.entries(value)) {
    if (!NAME.test(name))
      throw new TriggerConfigError(
        `configuration: ${variable}.${name}: names are lower case letters, digits, - and _`,
      );
    const parsed = schema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `.${issue.path.join(".")}` : "";
      throw new TriggerConfigError(
        `configuration: ${variable}.${name}${where}: ${issue?.message ?? "invalid"}`,
      );
    }
    out[name] = { ...parsed.data, name };
  }
  return out;
}

const cache = new Map<string, unknown>();

function cached<T>(key: string, make: () => T): T {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

/** The named webhooks of `WEBHOOKS`. */
export function webhooks(env: Env): Record<string, WebhookConfig> {
  const raw = env.WEBHOOKS;
  return cached(`w:${raw ?? ""}`, () => parseNamed("WEBHOOKS", raw, webhook()));
}

/** The scheduled runs of `SCHEDULES`. */
export function schedules(env: Env): Record<string, ScheduleConfig> {
  const raw = env.SCHEDULES;
  return cached(`s:${raw ?? ""}`, () => parseNamed("SCHEDULES", raw, schedule()));
}
