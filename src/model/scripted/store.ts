/**
 * In-memory state of the scripted Messages API: scenarios by id, attempt counters per
 * (scenario, turn index), a bounded log of received requests (last 500) and the number of
 * streams currently producing. Plain data structures, safe in workerd and Node alike.
 */
import { type Scenario, ScenarioSchema } from "./turn.ts";

/** Most requests kept in the log; older ones are dropped first. */
export const REQUEST_LOG_LIMIT = 500;
/** Most scenarios kept; registering more drops the oldest. */
export const SCENARIO_LIMIT = 10_000;

/** One received `POST /v1/messages`, as returned by `GET /_scripted/requests`. */
export interface LoggedRequest {
  /** Receive time in ms since the epoch (from the handler's `now`). */
  at: number;
  /** Scenario id, or null in default (directive) mode or when the body was unusable. */
  scenario: string | null;
  /** Number of assistant messages in the request (-1 when the body was unusable). */
  turnIndex: number;
  /** 1-based attempt for (scenario, turnIndex); 0 when the request was rejected before. */
  attempt: number;
  /** HTTP status answered (200 for a stream, even one that later sends `event: error`). */
  status: number;
  /** Selected headers; credentials are redacted to "<set>". */
  headers: {
    authorization?: string;
    "x-api-key"?: string;
    "anthropic-version"?: string;
  };
  /** The parsed request JSON (null when it was not JSON). */
  body: unknown;
  /** The request body exactly as received. */
  bodyText: string;
}

/** Scenarios, attempt counters and the request log of one scripted Messages API. */
export class ScenarioStore {
  readonly #scenarios = new Map<string, Scenario>();
  readonly #attempts = new Map<string, number>();
  /** Turns an in-order scenario has played (`inOrder`), by scenario id. */
  readonly #played = new Map<string, number>();
  #log: LoggedRequest[] = [];
  #messageCounter = 0;
  #activeStreams = 0;

  /** Registers (or replaces) a scenario after validating it; resets its attempt counters. */
  addScenario(scenario: Scenario): void {
    const parsed = ScenarioSchema.parse(scenario);
    this.#scenarios.delete(parsed.id);
    this.#scenarios.set(parsed.id, parsed);
    this.#played.delete(parsed.id);
    const prefix = `${parsed.id}\u0000`;
    for (const key of [...this.#attempts.keys()]) {
      if (key.startsWith(prefix)) this.#attempts.delete(key);
    }
    while (this.#scenarios.size > SCENARIO_LIMIT) {
      const oldest = this.#scenarios.keys().next().value;
      if (oldest === undefined) break;
      this.#scenarios.delete(oldest);
    }
  }

  /** The scenario registered under `id`, if any. */
  getScenario(id: string): Scenario | undefined {
    return this.#scenarios.get(id);
  }

  /** The next turn of in-order scenario `id`, used up when `play` (a streamed request). */
  nextInOrder(id: string, play: boolean): number {
    const index = this.#played.get(id) ?? 0;
    if (play) this.#played.set(id, index + 1);
    return index;
  }

  /** Increments and returns the 1-based attempt number for (scenario, turnIndex). */
  nextAttempt(scenario: string | null, turnIndex: number): number {
    const key = `${scenario ?? ""}\u0000${turnIndex}`;
    const attempt = (this.#attempts.get(key) ?? 0) + 1;
    this.#attempts.set(key, attempt);
    return attempt;
  }

  /** A fresh message id `msg_scripted_<n>` (the counter survives `reset()`). */
  nextMessageId(): string {
    this.#messageCounter += 1;
    return `msg_scripted_${this.#messageCounter}`;
  }

  /** Appends to the request log, keeping the last REQUEST_LOG_LIMIT entries. */
  logRequest(entry: LoggedRequest): void {
    this.#log.push(entry);
    if (this.#log.length > REQUEST_LOG_LIMIT) {
      this.#log = this.#log.slice(this.#log.length - REQUEST_LOG_LIMIT);
    }
  }

  /** Logged requests, oldest first, optionally only those of one scenario. */
  requests(scenario?: string): LoggedRequest[] {
    return scenario === undefined
      ? [...this.#log]
      : this.#log.filter((r) => r.scenario === scenario);
  }

  /** Number of SSE streams still producing events (drops when a client disconnects). */
  get activeStreams(): number {
    return this.#activeStreams;
  }

  /** Bookkeeping for `activeStreams`; called by the stream producer. */
  streamStarted(): void {
    this.#activeStreams += 1;
  }

  /** Bookkeeping for `activeStreams`; called by the stream producer. */
  streamEnded(): void {
    this.#activeStreams = Math.max(0, this.#activeStreams - 1);
  }

  /** Forgets every scenario, attempt counter and logged request. */
  reset(): void {
    this.#scenarios.clear();
    this.#attempts.clear();
    this.#log = [];
  }
}
