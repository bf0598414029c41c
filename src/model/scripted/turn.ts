/**
 * Scripted model turns and scenarios: the zod schemas (v4) and their types.
 * A Turn describes one assistant response of the scripted Messages API (text, thinking,
 * tool uses, stop reason, pacing, stalls and injected failures, or a recorded stream replayed
 * verbatim); a Scenario is an ordered list of turns selected by a `[[scenario:<id>]]` marker in
 * the request. Pure data, no I/O.
 */
import { z } from "zod";

/** One tool call the scripted assistant makes; `id` defaults to a generated `toolu_...`. */
export const ToolUseSpecSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/)
    .optional(),
  name: z.string().min(1).max(200),
  input: z.record(z.string(), z.unknown()),
});
/** One scripted tool call. */
export type ToolUseSpec = z.infer<typeof ToolUseSpecSchema>;

/** An HTTP error answered instead of the turn on one attempt. */
export const ErrorSpecSchema = z.strictObject({
  status: z.number().int().min(400).max(599),
  type: z.string().min(1),
  message: z.string().optional(),
  retryAfter: z.number().nonnegative().optional(),
  retryAfterMs: z.number().nonnegative().optional(),
});
/** A scripted HTTP error (Anthropic error JSON body, optional `retry-after(-ms)` headers). */
export type ErrorSpec = z.infer<typeof ErrorSpecSchema>;

/** An `event: error` sent inside an otherwise successful stream. */
export const MidStreamErrorSpecSchema = z.strictObject({
  afterChunks: z.number().int().nonnegative(),
  type: z.string().min(1),
  message: z.string().optional(),
  attempts: z.array(z.number().int().positive()).optional(),
});
/** A scripted mid-stream error (default: only on attempt 1). */
export type MidStreamErrorSpec = z.infer<typeof MidStreamErrorSpecSchema>;

/**
 * A stream cut short after `afterChunks` text deltas: it ends without `message_stop` (`end`) or
 * its connection drops mid-body (`drop`).
 */
export const CutSpecSchema = z.strictObject({
  afterChunks: z.number().int().nonnegative(),
  how: z.enum(["end", "drop"]),
  attempts: z.array(z.number().int().positive()).optional(),
});
/** A scripted cut stream (default: only on attempt 1; streams only). */
export type CutSpec = z.infer<typeof CutSpecSchema>;

const tokenCount = z.number().int().nonnegative();

/** Usage numbers reported for a turn; each one overrides the computed estimate. */
export const UsageSpecSchema = z.strictObject({
  input_tokens: tokenCount.optional(),
  output_tokens: tokenCount.optional(),
  cache_read_input_tokens: tokenCount.optional(),
  cache_creation_input_tokens: tokenCount.optional(),
});
/** Usage overrides for a turn. */
export type UsageSpec = z.infer<typeof UsageSpecSchema>;

/** Stop reasons a scripted turn may end with. */
export const StopReasonSchema = z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence"]);
/** A scripted stop reason. */
export type StopReason = z.infer<typeof StopReasonSchema>;

/**
 * One scripted assistant response. Block order: thinking, text, tool uses.
 * `errors[k-1]` fails attempt k; stalls and mid-stream errors count text deltas.
 */
export const TurnSchema = z.strictObject({
  text: z.string().max(1_000_000).optional(),
  thinking: z.string().max(1_000_000).optional(),
  toolUses: z.array(ToolUseSpecSchema).max(2_000).optional(),
  stopReason: StopReasonSchema.optional(),
  chunkSize: z.number().int().min(1).max(1_000_000).optional(),
  delayMs: z.number().int().min(0).max(60_000).optional(),
  /** The attempts `delayMs` paces (default: every attempt). */
  delayAttempts: z.array(z.number().int().positive()).optional(),
  stallAfterChunks: z.number().int().nonnegative().optional(),
  stallMs: z.number().int().min(0).max(600_000).optional(),
  stallAttempts: z.array(z.number().int().positive()).optional(),
  errors: z.array(ErrorSpecSchema).max(100).optional(),
  midStreamError: MidStreamErrorSpecSchema.optional(),
  cut: CutSpecSchema.optional(),
  usage: UsageSpecSchema.optional(),
  /**
   * A recorded SSE stream, by name, sent byte for byte instead of the turn (a stream only; the
   * server that has recordings resolves the name, see `ScriptedMessagesApiOptions.recordings`).
   */
  recorded: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/)
    .optional(),
  /** The attempts `recorded` answers (default: every attempt); the others play the turn. */
  recordedAttempts: z.array(z.number().int().positive()).optional(),
});
/** One scripted assistant response. */
export type Turn = z.infer<typeof TurnSchema>;

/** A named, ordered list of turns; turn i answers a request carrying i assistant messages. */
export const ScenarioSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "id must be 1-100 chars of [A-Za-z0-9_.-]"),
  turns: z.array(TurnSchema).min(1).max(1000),
  /**
   * Play the turns in the order streamed requests name the scenario, whatever each request holds,
   * instead of by its number of assistant messages: a long task whose conversation is compacted
   * (fewer assistant messages) still moves on. A request that does not stream (a compaction's
   * summary) gets the next turn without using it up.
   */
  inOrder: z.boolean().optional(),
});
/** A scripted scenario. */
export type Scenario = z.infer<typeof ScenarioSchema>;

/** Default characters per text/thinking delta. */
export const DEFAULT_CHUNK_SIZE = 12;
