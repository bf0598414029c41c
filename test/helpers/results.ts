/** Reading a workspace call's `WsResult` in a test: its value, or its refusal. */
import type { WsResult } from "../../src/workspace/types.ts";

/** The value of a call that must succeed. */
export function ok<T>(result: WsResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.value;
}

/** The refusal of a call that must be refused. */
export function refused<T>(result: WsResult<T>): string {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return result.error;
}
