/**
 * Delivers a task's push notifications from its alarm: at least once, in order per config (a
 * config's next notification waits until the one before it is delivered or given up), with
 * exponential backoff (a receiver's `Retry-After` honoured) and a bounded number of attempts. The
 * URL passes the SSRF policy again at every attempt; redirects are not followed. Each attempt is
 * recorded on the delivery row, which the task's owner reads: a 2xx status, or a generic outcome
 * (`refused: address not allowed`, `HTTP 4xx`/`5xx`, `no answer ...`, `config deleted`), never
 * the receiver's exact status, body or connection error (those are logged).
 */
import { loadConfig } from "../config/config.ts";
import { backoffMs } from "../model/errors.ts";
import { log } from "../platform/logging.ts";
import { checkUrl } from "../platform/ssrf.ts";
import type { Scheduler } from "../store/scheduler.ts";
import type { Outgoing, PushStore } from "./push-store.ts";

/** Schedule id (and kind) of push delivery. */
export const PUSH_JOB = "push";

const MAX_RETRY_AFTER_MS = 300_000;

/**
 * A failed attempt: what the delivery record (which the caller reads) says, generic so the
 * harness is no probe of what answers at a URL; the detail (exact status, connection error) goes
 * to the log only. `permanent`: not retried.
 */
interface Failure {
  recorded: string;
  detail: string;
  permanent: boolean;
}
const CONFIG_DELETED = "config deleted";
const NO_ANSWER = "no answer (timed out or could not connect)";

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(Math.max(seconds, 0) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(header);
  return Number.isNaN(date)
    ? undefined
    : Math.min(Math.max(date - Date.now(), 0), MAX_RETRY_AFTER_MS);
}

/** Sends what is due and keeps the schedule entry in step with the queue. */
export class PushSender {
  readonly #store: PushStore;
  readonly #scheduler: Scheduler;
  readonly #env: Env;
  readonly #taskId: () => string;
  readonly #background: (work: Promise<void>) => void;
  /** `traceparent` (and `tracestate`) from the task's span. */
  readonly #traceHeaders: () => Promise<Record<string, string>>;
  #inFlight: Promise<void> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    store: PushStore,
    scheduler: Scheduler,
    env: Env,
    taskId: () => string,
    background: (work: Promise<void>) => void,
    traceHeaders: () => Promise<Record<string, string>> = async () => ({}),
  ) {
    this.#store = store;
    this.#scheduler = scheduler;
    this.#env = env;
    this.#taskId = taskId;
    this.#background = background;
    this.#traceHeaders = traceHeaders;
  }

  /**
   * After a notification was queued: the schedule entry is the durable path (the alarm sends it
   * even if this instance dies); sending at once is the fast one, so a long model turn holding
   * the alarm does not hold notifications back.
   */
  async wake(): Promise<void> {
    const entry = this.#scheduler.get(PUSH_JOB);
    if (!entry || entry.dueAt > Date.now())
      await this.#scheduler.schedule(PUSH_JOB, PUSH_JOB, Date.now());
    this.#background(this.deliverDue());
  }

  /** Sends every due notification (one config's in order), then schedules the next attempt. */
  deliverDue(): Promise<void> {
    // One run at a time; a caller arriving meanwhile waits for that run (which reschedules).
    this.#inFlight ??= this.#run().finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  async #run(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const due = this.#store.heads().filter((d) => d.nextAt <= now);
      if (due.length === 0) break;
      await Promise.all(due.map((d) => this.#attempt(d)));
    }
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const next = this.#store.heads();
    if (next.length === 0) {
      await this.#scheduler.cancel(PUSH_JOB);
      return;
    }
    const dueAt = Math.min(...next.map((d) => d.nextAt));
    await this.#scheduler.schedule(PUSH_JOB, PUSH_JOB, dueAt);
    // The fast path again: a timer while this instance lives; the alarm if it does not.
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#background(this.deliverDue());
      },
      Math.max(0, dueAt - Date.now()),
    );
  }

  async #attempt(delivery: Outgoing): Promise<void> {
    const config = loadConfig(this.#env);
    const target = this.#store.config(delivery.configId);
    const attempts = delivery.attempts + 1;
    const at = Date.now();
    const checked = checkUrl(delivery.url, { allowPrivate: config.webFetchAllowPrivate });
    let failure: Failure | null = null;
    let httpStatus: number | null = null;
    let retryAfter: number | undefined;
    if (!target) failure = { recorded: CONFIG_DELETED, detail: CONFIG_DELETED, permanent: true };
    else if (!checked.ok)
      failure = {
        recorded: "refused: address not allowed",
        detail: checked.reason,
        permanent: true,
      };
    else {
      const headers: Record<string, string> = {
        "content-type": delivery.contentType,
        "user-agent": "a2a-edge-harness push",
        "x-a2a-task-id": this.#taskId(),
        ...(await this.#traceHeaders()),
      };
      if (target.token !== null) headers["x-a2a-notification-token"] = target.token;
      if (target.authScheme !== null)
        headers.authorization = `${target.authScheme} ${target.authCredentials ?? ""}`.trim();
      try {
        const response = await fetch(checked.url, {
          method: "POST",
          headers,
          body: delivery.body,
          redirect: "manual",
          signal: AbortSignal.timeout(config.pushTimeoutMs),
        });
        await response.body?.cancel();
        if (response.status >= 200 && response.status < 300) httpStatus = response.status;
        else {
          failure = {
            recorded: `HTTP ${Math.floor(response.status / 100)}xx`,
            detail: `HTTP ${response.status}`,
            permanent: false,
          };
          retryAfter = retryAfterMs(response.headers.get("retry-after"));
        }
      } catch (cause) {
        const timedOut = cause instanceof Error && cause.name === "TimeoutError";
        failure = {
          recorded: NO_ANSWER,
          detail: timedOut
            ? `no answer within ${config.pushTimeoutMs} ms`
            : `could not connect: ${cause instanceof Error ? cause.message : String(cause)}`,
          permanent: false,
        };
      }
    }
    const givingUp = failure !== null && (failure.permanent || attempts >= config.pushMaxAttempts);
    this.#store.record(delivery.seq, {
      status: failure === null ? "delivered" : givingUp ? "failed" : "pending",
      attempts,
      httpStatus,
      error: failure?.recorded ?? null,
      nextAt:
        failure === null || givingUp
          ? at
          : at + backoffMs(attempts, config.pushRetryBaseMs, retryAfter),
      at,
    });
    if (failure !== null)
      log(givingUp ? "error" : "warn", givingUp ? "push gave up" : "push retry", {
        taskId: this.#taskId(),
        configId: delivery.configId,
        seq: delivery.seq,
        attempts,
        error: failure.detail,
      });
  }
}
