/**
 * Recorded turns of the scripted Messages API: a turn naming a `recorded` stream is answered
 * with that SSE text byte for byte (one write per event, as the API sends them), whatever it
 * holds: a refusal, a malformed stream the SDK rejects, anything captured from the real API.
 * Which recordings exist is the host's business (`RecordingSource`); without one, or for an
 * unknown name, the request is a 400 naming the recording. Web APIs only (workerd and Node).
 */
import { sseResponse } from "./play.ts";
import { apiError } from "./request.ts";
import type { ScenarioStore } from "./store.ts";
import type { Turn } from "./turn.ts";

/** The SSE text of a recording by name, or undefined when there is none of that name. */
export type RecordingSource = (name: string) => string | undefined;

/**
 * The recording `turn` replays on `attempt`: its text, null when the turn plays normally on this
 * attempt, or an error response (unknown recording, or a request that does not stream).
 */
export function recordingFor(
  turn: Turn,
  attempt: number,
  stream: boolean,
  source: RecordingSource | undefined,
): string | null | Response {
  const name = turn.recorded;
  if (name === undefined) return null;
  if (turn.recordedAttempts !== undefined && !turn.recordedAttempts.includes(attempt)) return null;
  const text = source?.(name);
  if (text === undefined)
    return apiError(400, "invalid_request_error", `no recorded stream '${name}'`);
  if (!stream)
    return apiError(
      400,
      "invalid_request_error",
      `recorded stream '${name}' answers streaming requests only`,
    );
  return text;
}

/** Splits SSE text into its events, each with the blank line that ends it. */
export function sseEvents(text: string): string[] {
  return text.split(/(?<=\n\n)/).filter((event) => event !== "");
}

/** Sends `text` as a `text/event-stream` response, one write per event. */
export function replayRecording(
  text: string,
  ctx: { signal: AbortSignal; store: ScenarioStore },
): Response {
  const events = sseEvents(text);
  const encoder = new TextEncoder();
  let next = 0;
  let started = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (started) ctx.store.streamEnded();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!started) {
          started = true;
          ctx.store.streamStarted();
        }
        const event = events[next];
        next += 1;
        if (event === undefined || ctx.signal.aborted) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(event));
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: 0 },
  );
  return sseResponse(body, `req_recorded_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`);
}
