/**
 * A task's cost where clients look: its token usage and the estimated cost of it (the price
 * table of model/pricing.ts, at the model the task's agent runs on) under the cost extension's
 * URI, in the task's metadata and its final status update, marked `simulated` for a task of the
 * scripted local model. Pure.
 */
import { withDefaultModel } from "../agents/identity.ts";
import { currentAgents } from "../agents/overrides.ts";
import { SCRIPTED_MODEL_SOURCE } from "../model/client.ts";
import { estimateCost } from "../model/pricing.ts";
import type { Usage } from "../model/usage.ts";
import { fieldOf, textField } from "../platform/fields.ts";
import { COST_EXTENSION } from "../protocol/extensions.ts";

/** What the cost extension carries. */
export interface TaskCost {
  usage: Usage;
  estimatedCostUsd: number;
  /** The model the estimate is priced at. */
  model: string;
  /**
   * True when the task ran on the scripted local model (no key): the tokens are counted and priced
   * as if Claude had answered, and nothing was charged.
   */
  simulated?: true;
}

/** The model a task runs on, as its metadata records it ("" when unknown). */
export function modelOfTask(metadata: Record<string, unknown>): string {
  return textField(metadata.model, "name") ?? "";
}

/** The usage and cost metadata of a task with `usage` (both the plain `usage` and the extension). */
export function usageMetadata(
  metadata: Record<string, unknown>,
  usage: Usage,
): { usage: Usage; [COST_EXTENSION]: TaskCost } {
  const model = modelOfTask(metadata);
  const source = fieldOf(metadata.model, "source");
  return {
    usage,
    [COST_EXTENSION]: {
      usage,
      estimatedCostUsd: estimateCost(model, usage),
      model,
      ...(source === SCRIPTED_MODEL_SOURCE ? { simulated: true as const } : {}),
    },
  };
}

/** The model an agent runs on now (its file's, else `defaultModel`); "" for an agent now gone. */
export function agentModel(name: string, defaultModel: string): string {
  const agent = currentAgents().get(name);
  return agent ? withDefaultModel(agent, defaultModel).model : "";
}
