/**
 * What parts say, read one way by every face: text (data parts only where asked, as JSON), and the
 * form a question asks, which is a JSON schema object or nothing, on MCP and AG-UI alike.
 */
import { describe, expect, it } from "vitest";
import { RunTranslator } from "../../../src/ag-ui/translate.ts";
import { taskResult } from "../../../src/mcp-server/tool-results.ts";
import { formIn, partsText } from "../../../src/protocol/parts.ts";
import type { Part, Task } from "../../../src/protocol/wire.ts";

const form = { type: "object", properties: { day: { type: "string" } } };

const question = (parts: Part[]): Task => ({
  id: "t1",
  contextId: "c1",
  status: {
    state: "TASK_STATE_INPUT_REQUIRED",
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { messageId: "m1", role: "ROLE_AGENT", parts },
  },
});

/** The interrupt's schema an AG-UI run ends with for `task`. */
function interruptSchema(task: Task): unknown {
  const events = new RunTranslator("c1", "r1").translate({ task }) as Array<{
    outcome?: { interrupts?: Array<{ responseSchema?: unknown }> };
  }>;
  return events.at(-1)?.outcome?.interrupts?.[0]?.responseSchema;
}

describe("parts", () => {
  it("reads text parts one line apart, empty ones left out; data only as JSON where asked", () => {
    const parts: Part[] = [{ text: "one" }, { text: "" }, { data: { a: 1 } }, { text: "two" }];
    expect(partsText(parts)).toBe("one\ntwo");
    expect(partsText(parts, { dataAsJson: true })).toBe('one\n{"a":1}\ntwo');
    expect(partsText(undefined)).toBe("");
  });

  it("finds a form or an approval's schema, and only a JSON object as one", () => {
    expect(formIn([{ text: "Which day?" }, { data: { kind: "form", schema: form } }])).toEqual(
      form,
    );
    expect(formIn([{ data: { kind: "approval", tool: "x", schema: form } }])).toEqual(form);
    for (const schema of ["a string", ["an", "array"], 7, null])
      expect(formIn([{ data: { kind: "form", schema } }]), JSON.stringify(schema)).toBeNull();
    expect(formIn([{ data: { kind: "note", schema: form } }])).toBeNull();
  });

  it("gives MCP and AG-UI the same form for the same question", () => {
    const asked = question([{ text: "Which day?" }, { data: { kind: "form", schema: form } }]);
    expect(taskResult(asked).structuredContent?.form).toEqual(form);
    expect(interruptSchema(asked)).toEqual(form);
    for (const schema of ["a string", ["an", "array"]]) {
      const odd = question([{ text: "Which day?" }, { data: { kind: "form", schema } }]);
      expect(taskResult(odd).structuredContent?.form, JSON.stringify(schema)).toBeUndefined();
      expect(interruptSchema(odd), JSON.stringify(schema)).toBeUndefined();
    }
  });
});
