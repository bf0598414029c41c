/**
 * The hooks every task runs, in order. `afterTool` results chain through them: loop detection
 * adds its guidance, then long outputs are compacted and truncated, the verification gate notes
 * what was changed and checked, and the events hook reports the final result. Before a call, caps
 * come first and approvals last (a call is counted and announced, then waits for a person).
 */

import { HookRunner } from "../loop/calls/hook-runner.ts";
import type { Hook } from "../loop/contracts.ts";
import { approvalsHook } from "./approvals.ts";
import { capsHook } from "./caps.ts";
import { loopDetectionHook } from "./loop-detection.ts";
import { outputCompactionHook, outputTruncationHook } from "./output-limits.ts";
import { toolEventsHook } from "./tool-events.ts";
import { verificationHook } from "./verification.ts";

/** The default hooks, in order. */
export const DEFAULT_HOOKS: readonly Hook[] = [
  capsHook,
  loopDetectionHook,
  outputCompactionHook,
  outputTruncationHook,
  verificationHook,
  toolEventsHook,
  approvalsHook,
];

/** A runner over the default hooks. */
export function defaultHooks(): HookRunner {
  return new HookRunner(DEFAULT_HOOKS);
}
