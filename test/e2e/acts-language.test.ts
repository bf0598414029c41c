/**
 * The ACTS runner's reading of the format, without a server: the assertion language (operators,
 * nesting, a member named like an operator, `items`, alternatives), dot paths with wildcards,
 * placeholders, `repeat.until`, stream expectations, error names per binding, and the mapping of
 * abstract params and answers (wire.ts). Node only (scripts/).
 */
import { describe, expect, it } from "vitest";
import { check, holds } from "../../scripts/acts/assertions.ts";
import { jsonRpcErrorName, restErrorName } from "../../scripts/acts/errors.ts";
import { untilHolds } from "../../scripts/acts/expectations.ts";
import { resolveAll } from "../../scripts/acts/paths.ts";
import { streamFailures } from "../../scripts/acts/stream-expect.ts";
import { interpolate, type Scope, VariableError } from "../../scripts/acts/variables.ts";
import { abstractView, wireParams } from "../../scripts/acts/wire.ts";

describe("the assertion language", () => {
  it("checks scalars, nesting and operators, every failure with its path", () => {
    const task = { id: "t", status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [] }] };
    expect(
      check(task, { id: { type: "string" }, status: { state: "TASK_STATE_COMPLETED" } }),
    ).toEqual([]);
    expect(check(task, { artifacts: { count_gte: 2 }, history: { exists: true } })).toEqual([
      { path: "$.artifacts", message: expect.stringMatching(/count_gte 2/) },
      { path: "$.history", message: "expected to be present, it is missing" },
    ]);
    expect(holds(task, { status: { state: { one_of: ["A", "TASK_STATE_COMPLETED"] } } })).toBe(
      true,
    );
    expect(holds("abc", { all_of: [{ starts_with: "a" }, { not: { contains: "z" } }] })).toBe(true);
    expect(holds(undefined, { any_of: [{ absent: true }, { type: "array" }] })).toBe(true);
  });

  it("reads a key as an operator only when its value has the operator's shape", () => {
    const problem = { type: "https://x/not-found", title: "Not found", status: 404 };
    expect(check(problem, { type: { type: "string" }, status: { type: "number" } })).toEqual([]);
    expect(holds({ type: 3 }, { type: { type: "string" } })).toBe(false);
  });

  it("checks items: a map against every element, a list against the first ones", () => {
    const list = [{ v: "1.0" }, { v: "0.3" }];
    expect(holds(list, { items: { v: { type: "string" } } })).toBe(true);
    expect(holds(list, { items: { v: { starts_with: "1." } } })).toBe(false);
    expect(holds(list, { items: [{ v: { starts_with: "1." } }] })).toBe(true);
  });

  it("resolves dot paths with indexes and wildcards", () => {
    const root = {
      task: { artifacts: [{ parts: [{ text: "a" }, { data: 1 }] }, { parts: [{ text: "b" }] }] },
    };
    expect(resolveAll(root, "task.artifacts[*].parts[*]")).toHaveLength(3);
    expect(resolveAll(root, "task.artifacts[1].parts[0].text")).toEqual(["b"]);
    expect(resolveAll(root, "task.history[*]")).toEqual([]);
  });

  it("resolves placeholders: captures first, then the runner's, the document's, the environment", () => {
    const scope: Scope = {
      captured: new Map([["send", { taskId: "t-1", response: { task: { id: "t-1" } } }]]),
      runner: { webhookUrl: "http://127.0.0.1:1/hook" },
      document: { webhookUrl: "https://example.com/never", base: "{{webhookUrl}}/x" },
      env: { HOME_DIR: "/h" },
    };
    expect(interpolate({ id: "{{send.taskId}}", all: "{{send.response}}" }, scope)).toEqual({
      id: "t-1",
      all: { task: { id: "t-1" } },
    });
    expect(interpolate("{{webhookUrl}} {{env.HOME_DIR}}", scope)).toBe(
      "http://127.0.0.1:1/hook /h",
    );
    expect(interpolate("{{base}}", scope)).toBe("http://127.0.0.1:1/hook/x");
    expect(() => interpolate("{{nope.taskId}}", scope)).toThrow(VariableError);
  });

  it("reads repeat.until conditions", () => {
    const task = { status: { state: "TASK_STATE_WORKING" } };
    expect(untilHolds("status.state == TASK_STATE_WORKING", task)).toBe(true);
    expect(untilHolds("status.state in [TASK_STATE_COMPLETED, TASK_STATE_FAILED]", task)).toBe(
      false,
    );
    expect(untilHolds('status.state != "TASK_STATE_COMPLETED"', task)).toBe(true);
  });
});

describe("stream expectations", () => {
  const working = { statusUpdate: { status: { state: "TASK_STATE_WORKING" } } };
  const done = { statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } };
  const artifact = { artifactUpdate: { artifact: { parts: [{ text: "x" }] }, append: true } };
  const task = { task: { id: "t", status: { state: "TASK_STATE_SUBMITTED" } } };

  it("checks counts, positions, any position, the final event and the end of the stream", () => {
    const events = [task, working, artifact, done];
    const expected = {
      min_count: 2,
      ordering: "monotonic_state" as const,
      events: [
        {
          index: 0,
          one_of: [{ task: { status: { exists: true } } }, { message: { exists: true } }],
        },
        { match: "any_position", artifact_update: { append: true } },
        { match: "any_position", artifact: { exists: true } },
      ],
      final_event: { status: { state: "TASK_STATE_COMPLETED" } },
    };
    expect(streamFailures(events, true, expected)).toEqual([]);
    expect(streamFailures(events, false, {})).toEqual([
      { path: "stream", message: "the server did not end the stream" },
    ]);
  });

  it("fails a state after a terminal one, and SUBMITTED after another", () => {
    const order = { ordering: "monotonic_state" as const };
    expect(streamFailures([task, done, working], true, order)[0]?.message).toMatch(
      /after the terminal/,
    );
    expect(streamFailures([working, task], true, order)[0]?.message).toMatch(/back to SUBMITTED/);
  });
});

describe("the wire", () => {
  it("names errors by JSON-RPC code, and by ErrorInfo reason or status over HTTP+JSON", () => {
    expect(jsonRpcErrorName(-32001)).toBe("TaskNotFoundError");
    expect(jsonRpcErrorName(-32009)).toBe("VersionNotSupportedError");
    const status = (reason: string) => ({
      error: { details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason }] },
    });
    expect(restErrorName(400, status("TASK_NOT_CANCELABLE"))).toBe("TaskNotCancelableError");
    expect(restErrorName(404, {})).toBe("TaskNotFoundError");
  });

  it("sends a message with a messageId of its own and the taskId given beside it", () => {
    const params = wireParams("send", {
      taskId: "t-1",
      message: {
        role: "ROLE_USER",
        parts: [{ file: { name: "a.pdf", mediaType: "application/pdf", bytes: "AA==" } }],
      },
    });
    expect(params).toEqual({
      message: {
        taskId: "t-1",
        messageId: expect.any(String),
        role: "ROLE_USER",
        parts: [{ raw: "AA==", filename: "a.pdf", mediaType: "application/pdf" }],
      },
    });
    expect(wireParams("createPush", { taskId: "t", pushNotificationConfig: { url: "u" } })).toEqual(
      {
        taskId: "t",
        url: "u",
      },
    );
  });

  it("shows file parts in the abstract model too", () => {
    expect(
      abstractView({ parts: [{ url: "https://x/f", filename: "f", mediaType: "text/plain" }] }),
    ).toEqual({
      parts: [
        {
          url: "https://x/f",
          filename: "f",
          mediaType: "text/plain",
          fileUrl: { url: "https://x/f", name: "f", mediaType: "text/plain" },
        },
      ],
    });
  });
});
