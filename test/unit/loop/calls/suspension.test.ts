/**
 * Waiting tool calls: how a person's reply is read (text, form values, yes or no), what the model
 * gets back, and the approvals hook asking only for the listed tools.
 */
import { describe, expect, it } from "vitest";
import { approvalsHook } from "../../../../src/hooks/approvals.ts";
import {
  answerContent,
  approvalFrom,
  type Reply,
  replyFrom,
  suspensionParts,
} from "../../../../src/loop/calls/suspension.ts";
import { hookContext } from "../../../helpers/hook-context.ts";

/** A person's reply of `text` with form values `data` (its raw parts left out). */
const reply = (text: string, data: Record<string, unknown>[] = []): Reply => ({
  kind: "reply",
  text,
  data,
  parts: [],
});

describe("replies", () => {
  it("joins text parts and keeps data parts", () => {
    const parts = [{ text: "a" }, { data: { x: 1 } }, { text: " " }, { text: "b" }];
    expect(replyFrom(parts)).toEqual({ kind: "reply", text: "a\nb", data: [{ x: 1 }], parts });
  });

  it("reads approval from the form first, then from the words", () => {
    expect(approvalFrom(reply("no", [{ approve: true }])).approved).toBe(true);
    expect(approvalFrom(reply("", [{ approve: false, reason: "later" }]))).toEqual({
      approved: false,
      reason: "later",
    });
    for (const yes of ["yes", "Y", "approve", "OK, go ahead", "sure thing"])
      expect(approvalFrom(reply(yes)).approved, yes).toBe(true);
    for (const no of ["no", "deny", "don't", "maybe later", "", "yes? no."])
      expect(approvalFrom(reply(no)).approved, no).toBe(false);
  });

  it("gives the model the answer and the form values", () => {
    expect(answerContent(reply("blue", [{ c: 1 }]))).toBe(
      'The user answered: blue\nForm values: {"c":1}',
    );
    expect(answerContent(reply(""))).toBe("The user answered without any text.");
  });

  it("asks with the question (and the form) or with an approval form", () => {
    expect(suspensionParts({ kind: "question", question: "Why?" })).toEqual([{ text: "Why?" }]);
    const approval = suspensionParts({
      kind: "approval",
      tool: "write_file",
      input: { path: "a" },
    });
    expect(approval[0]?.text).toContain('write_file with {"path":"a"}');
    expect(approval[1]?.data).toMatchObject({ kind: "approval", tool: "write_file" });
  });
});

describe("approvals hook", () => {
  it("suspends only listed tools, announcing the wait", async () => {
    const { ctx, events } = hookContext({}, ["write_file"]);
    const call = (name: string) => ({ id: "1", name, input: { path: "x" } });
    expect(await approvalsHook.beforeTool?.(ctx, call("read_file"))).toBeUndefined();
    expect(await approvalsHook.beforeTool?.(ctx, call("write_file"))).toEqual({
      suspend: { kind: "approval", tool: "write_file", input: { path: "x" } },
    });
    expect(events.map((e) => e.kind)).toEqual(["approval"]);
  });
});
