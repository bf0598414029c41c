/**
 * The v1.0 params schemas read fields under their proto names too (ProtoJSON), as the official
 * kits send them: a push config's `task_id` is its `taskId` (without the SDK's codec in front of
 * the schema, nothing else would read it).
 */
import { describe, expect, it } from "vitest";
import { pushConfigParams } from "../../../src/protocol/params.ts";

describe("PushConfigParams", () => {
  it("reads taskId under its proto name, the JSON name winning when both are sent", () => {
    const url = "https://example.com/hook";
    expect(pushConfigParams().parse({ task_id: "t-1", url })).toMatchObject({ taskId: "t-1", url });
    expect(pushConfigParams().parse({ task_id: "t-1", taskId: "t-2" }).taskId).toBe("t-2");
    expect(pushConfigParams().parse({ task_id: "t-1", id: "c-1" })).toMatchObject({
      taskId: "t-1",
      id: "c-1",
    });
  });

  it("refuses a task id that is not a string", () => {
    expect(pushConfigParams().safeParse({ taskId: 7 }).success).toBe(false);
  });
});
