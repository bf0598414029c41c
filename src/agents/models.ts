/**
 * What the harness knows of Claude models: the `effort` levels (`output_config.effort`) each
 * model family takes (the model of an agent whose IDENTITY.md names none is the deployment's
 * `DEFAULT_MODEL`, whose default is config/env-schema.ts's `BUILT_IN_MODEL`), for the IDENTITY.md
 * parser, the loop and Node scripts alike.
 *
 * Effort levels by model (Anthropic's effort documentation): Opus 4.5 takes low, medium and high;
 * Opus 4.6 and later, Sonnet 4.6 and later, and the Claude 5 models also take max; earlier
 * models (Sonnet 4.5, Haiku 4.5, Claude 4.1 and before, Claude 3) take no effort setting. A model
 * id the harness does not recognise (another provider's, a newer naming) is trusted with any level.
 *
 * The model ids the harness knows are those the Anthropic SDK names (its `Model` type, held equal
 * by a test); an id one edit from one of them is a likely typo (`claude-sonet-4-6`), which
 * `npm run dev` and the build warn about (an unknown id is still sent as written). Pure data and
 * functions (its one import, near-miss.ts, has none).
 */
import { nearestName } from "../platform/near-miss.ts";

/** Every effort level a frontmatter may ask for, lowest first. */
export const EFFORT_LEVELS = ["low", "medium", "high", "max"] as const;

/** An effort level. */
export type Effort = (typeof EFFORT_LEVELS)[number];

const ALL: readonly Effort[] = EFFORT_LEVELS;
const NO_MAX: readonly Effort[] = ["low", "medium", "high"];
const NONE: readonly Effort[] = [];

/**
 * The effort levels `model` takes, or null when the harness does not know the model (any level
 * is sent as asked). Ids may carry a date (`claude-opus-4-5-20251101`).
 */
export function effortsOf(model: string): readonly Effort[] | null {
  if (/^claude-3/.test(model)) return NONE;
  const match = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(model);
  if (!match) return null;
  const family = match[1];
  const version = Number(match[2]) + Number(match[3] ?? 0) / 10;
  if (version >= 5) return ALL;
  if (family === "haiku") return version < 4.6 ? NONE : null;
  if (version >= 4.6) return ALL;
  if (family === "opus" && version === 4.5) return NO_MAX;
  return NONE;
}

/** Why `model` does not take `effort` (one clause), or null when it does or is unknown. */
export function effortProblem(effort: Effort, model: string): string | null {
  const levels = effortsOf(model);
  if (levels === null || levels.includes(effort)) return null;
  return levels.length === 0
    ? `${model} takes no effort setting; remove effort or name a model that takes it (Opus 4.5, Opus or Sonnet 4.6 and later)`
    : `${model} does not take effort "${effort}" (it takes ${levels.join(", ")}); "max" needs Opus or Sonnet 4.6 or later`;
}

/**
 * The effort to send for `model`: `effort` where the model takes it, else the highest level it
 * takes below it, else none (null). For an agent on the deployment's default model, whose file
 * could not be checked against it.
 */
export function effortFor(effort: Effort | null, model: string): Effort | null {
  if (effort === null) return null;
  const levels = effortsOf(model);
  if (levels === null || levels.includes(effort)) return effort;
  const below = EFFORT_LEVELS.slice(0, EFFORT_LEVELS.indexOf(effort)).filter((e) =>
    levels.includes(e),
  );
  return below.at(-1) ?? null;
}

/** The model ids of the Anthropic SDK's `Model` type (test/unit/agents/models.test.ts). */
export const KNOWN_MODELS = [
  "claude-fable-5-2",
  "claude-mythos-5-2",
  "claude-haiku-5-5",
  "claude-sonnet-5-5",
  "claude-fable-5-1",
  "claude-opus-5-5",
  "claude-mythos-5-1",
  "claude-sonnet-5",
  "claude-fable-5",
  "claude-mythos-5",
  "claude-opus-5",
  "claude-opus-4-8",
  "claude-opus-4-7",
  "claude-mythos-preview",
  "claude-opus-4-6",
  "claude-sonnet-4-6",
  "claude-haiku-4-5",
  "claude-haiku-4-5-20251001",
  "claude-opus-4-5",
  "claude-opus-4-5-20251101",
  "claude-sonnet-4-5",
  "claude-sonnet-4-5-20250929",
] as const;

/**
 * The known model id one edit from `model` (a letter inserted, dropped, changed or two swapped,
 * or another case), or null: `model` is known, or nothing known is that close.
 */
export function nearModel(model: string): string | null {
  return nearestName(model, KNOWN_MODELS, 1);
}

/** The warning for a model id that is likely a typo of a known one, or null. */
export function modelTypoWarning(model: string): string | null {
  const near = nearModel(model);
  return near === null
    ? null
    : `"${model}" is not a model the harness knows; did you mean ${near}? (sent as written: the model API answers an unknown id with 404)`;
}
