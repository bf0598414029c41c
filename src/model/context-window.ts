/**
 * The context window of a model, in tokens, by model family: the figures Anthropic's model pages
 * give for a request without beta headers (the harness sends none, so Sonnet 4 and 4.5 count
 * their standard 200K, not the 1M of the `context-1m` beta). A model the table does not know
 * gets {@link DEFAULT_CONTEXT_WINDOW}, the smallest window of the current Claude models, so an
 * unknown model is never assumed to hold more than it may. Pure.
 */

/** The window of a model no row of {@link CONTEXT_WINDOWS} matches. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** One row: the model ids it covers (matched from the start, date suffixes allowed) and the window. */
export interface ContextWindowRow {
  family: string;
  pattern: RegExp;
  tokens: number;
}

/** The table, first match wins. */
export const CONTEXT_WINDOWS: readonly ContextWindowRow[] = [
  {
    family: "Claude Opus 4.6 and later 4.x, Sonnet 4.6",
    pattern: /^claude-(opus|sonnet)-4-[6-9](?![0-9])/,
    tokens: 1_000_000,
  },
  {
    family: "Claude 5 generation (Opus, Sonnet, Fable, Mythos)",
    pattern: /^claude-(opus|sonnet|fable|mythos)-5(?![0-9])/,
    tokens: 1_000_000,
  },
  { family: "Claude Haiku 4.5; Claude 3.x", pattern: /^claude-(haiku-4|3-)/, tokens: 200_000 },
  {
    family: "Claude Opus 4, 4.1, 4.5; Sonnet 4, 4.5",
    pattern: /^claude-(opus|sonnet)-4(?![0-9])/,
    tokens: 200_000,
  },
];

/** The context window of `model` in tokens. */
export function contextWindowOf(model: string): number {
  const id = model.trim().toLowerCase();
  return CONTEXT_WINDOWS.find((row) => row.pattern.test(id))?.tokens ?? DEFAULT_CONTEXT_WINDOW;
}
