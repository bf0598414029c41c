/**
 * `feature_update`: the features of the work and the tests that prove each, in feature_status.json
 * (see workspace/state/feature-status.ts). Adds or changes features by id (status, title, test
 * files) and removes others; the harness keeps the counts and totals, and every `run_code` test run
 * that names a feature (or runs its test files) updates its passing / total.
 */
import { z } from "zod";
import { readFeatureStatus, writeFeatureStatus } from "../../workspace/state/feature-record.ts";
import {
  applyFeatureChanges,
  featureChangeSchema,
  featureIdSchema,
} from "../../workspace/state/feature-status.ts";
import { defineTool } from "../input.ts";

const input = () =>
  z.strictObject({
    features: z
      .array(featureChangeSchema())
      .max(50)
      .default([])
      .describe("Features to add or change"),
    remove: z.array(featureIdSchema()).max(50).default([]).describe("Ids of features to remove"),
  });

/** The feature_update tool. */
export const featureUpdateTool = defineTool({
  name: "feature_update",
  domain: "progress",
  description:
    "Record the features of the work in feature_status.json: each with an id, a status (not_started, in_progress, completed, blocked) and the workspace test files that prove it. Give only the features that change; remove drops features. run_code in test mode with feature: <id> records that feature's passing / total tests, and the next session re-runs the tests that passed.",
  input,
  async run(input, context) {
    if (input.features.length === 0 && input.remove.length === 0)
      return {
        content: "Refused: give features to add or change, or ids to remove.",
        isError: true,
      };
    const at = new Date().toISOString();
    const read = await readFeatureStatus(context.workspace, at);
    if (!read.ok)
      return {
        content: `${read.error}; the session start offers its last good version (state_restore).`,
        isError: true,
      };
    const applied = applyFeatureChanges(read.value, input.features, input.remove, {
      agent: context.agent,
      at,
    });
    if (!applied.ok) return { content: `Refused: ${applied.error}.`, isError: true };
    const written = await writeFeatureStatus(context.workspace, applied.value, context.taskId);
    if (!written.ok)
      return { content: `Could not write feature_status.json: ${written.error}`, isError: true };
    const s = applied.value;
    context.emit({
      kind: "progress",
      text: `Features: ${s.completed} of ${s.totalFeatures} completed, tests ${s.testsPassing}/${s.testsTotal} passing`,
      path: "feature_status.json",
      detail: { totals: { ...s, features: undefined } },
    });
    return {
      content: `feature_status.json updated: ${s.totalFeatures} features (${s.completed} completed, ${s.inProgress} in progress, ${s.blocked} blocked, ${s.notStarted} not started); tests ${s.testsPassing}/${s.testsTotal} passing.`,
    };
  },
});
