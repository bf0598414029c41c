// The console's record of its own requests and their answers, for the Raw pane (side/raw.js): the
// newest MAX_KEPT exchanges with the server, each with its method, URL, the request's JSON body
// (a file's bytes only as their size) and the answer's JSON (a stream's events as they arrive; a
// file's bytes only as their size and type). Headers are never kept: the token stays out of it.
// Listeners hear every new exchange and every change to one (a stream's next event).

const MAX_KEPT = 50;
/** The most events of one stream that are kept (the rest are counted). */
const MAX_EVENTS = 500;

const kept = [];
const listeners = new Set();
let nextId = 0;

function changed(exchange) {
  for (const listener of listeners) listener(exchange);
}

/** The exchanges kept, newest first. */
export const exchanges = () => [...kept].reverse();

/** Calls `listener(exchange)` on each new or changed exchange; returns how to stop. */
export function onExchange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The JSON a body holds, or a note of what it is (bytes are never kept). */
export function bodyRecord(body) {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") {
    try {
      return JSON.parse(body);
    } catch {
      return { text: body.slice(0, 10_000) };
    }
  }
  const size = body.size ?? body.byteLength;
  return { bytes: typeof size === "number" ? size : "?" };
}

/**
 * Starts recording a request (`request`: its JSON or a note); the exchange it returns is updated
 * with `answered(status, answer)` and, for a stream, `event(json)`.
 */
export function record(method, url, request) {
  const exchange = {
    id: ++nextId,
    at: new Date(),
    method,
    url,
    request,
    status: null,
    answer: null,
    events: null,
    dropped: 0,
  };
  kept.push(exchange);
  if (kept.length > MAX_KEPT) kept.shift();
  changed(exchange);
  return {
    answered(status, answer) {
      exchange.status = status;
      exchange.answer = answer;
      changed(exchange);
    },
    event(json) {
      exchange.events ??= [];
      if (exchange.events.length < MAX_EVENTS) exchange.events.push(json);
      else exchange.dropped++;
      changed(exchange);
    },
  };
}
