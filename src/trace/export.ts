/**
 * OTLP/HTTP export of a task's spans: one POST of all of them when the task ends, made after the
 * status is written and kept alive in the background (never on the task's path, never a call per
 * span). A collector that is down, slow (past {@link EXPORT_TIMEOUT_MS}), refusing or redirecting
 * (a redirect is never followed: the headers carry its credential) loses the spans: the task is
 * neither delayed nor failed, and at most one log line a minute says so. Off (no endpoint):
 * nothing is built or sent.
 */

import type { OtlpExport } from "../config/trace-config.ts";
import { log } from "../platform/logging.ts";
import { encodeSpans } from "./otlp.ts";
import type { TraceSpan } from "./span-types.ts";

/** How long one export may take before its spans are dropped. */
export const EXPORT_TIMEOUT_MS = 10_000;
const LOG_EVERY_MS = 60_000;
let lastLogged = 0;
let droppedSinceLog = 0;

/** Sends `spans` to the collector; resolves whatever happens (true when it accepted them). */
export async function exportSpans(
  target: OtlpExport,
  spans: TraceSpan[],
  fetchImpl: typeof fetch = fetch,
): Promise<boolean> {
  if (spans.length === 0) return true;
  let problem: string;
  try {
    const response = await fetchImpl(target.url, {
      method: "POST",
      headers: {
        ...target.headers,
        "content-type": target.protocol === "json" ? "application/json" : "application/x-protobuf",
      },
      body: encodeSpans(spans, target.protocol, target.resource),
      // Never followed: the headers hold the collector's credential (a 3xx is a failure).
      redirect: "manual",
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.ok) return true;
    problem = `HTTP ${response.status}`;
  } catch (error) {
    problem = error instanceof Error ? error.name : "error";
  }
  droppedSinceLog += spans.length;
  if (Date.now() - lastLogged >= LOG_EVERY_MS) {
    log("warn", "trace export failed; spans dropped", { problem, spans: droppedSinceLog });
    lastLogged = Date.now();
    droppedSinceLog = 0;
  }
  return false;
}
