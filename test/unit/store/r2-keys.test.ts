import { describe, expect, it } from "vitest";
import { confinedPath, KeyError, sharedKey, taskKey, userKey } from "../../../src/store/r2-keys.ts";

describe("R2 key layout", () => {
  it("pins the three prefixes", () => {
    expect(userKey("writer", "anon-1f2e", "workspace/notes.md")).toBe(
      "agents/writer/users/anon-1f2e/workspace/notes.md",
    );
    expect(sharedKey("writer", "CONTEXT.md")).toBe("agents/writer/shared/CONTEXT.md");
    expect(taskKey("9b2c", "artifacts/answer.md")).toBe("tasks/9b2c/artifacts/answer.md");
  });

  it("never keys data by the anonymous claim (it is every anonymous caller at once)", () => {
    expect(() => userKey("writer", "anonymous", "memory/CONTEXT.md")).toThrow(/anonymous claim/);
  });

  it("normalises harmless path forms", () => {
    expect(confinedPath("./a//b/./c.txt")).toBe("a/b/c.txt");
  });

  it.each([
    ["../secret", /\.\./],
    ["a/../../b", /\.\./],
    ["/etc/passwd", /relative/],
    ["a\\b", /backslashes/],
    ["a%2e%2e/b", /escapes/],
    ["a\u0000b", /control/],
    ["", /empty/],
    ["./", /empty/],
  ])("refuses %j", (path, reason) => {
    expect(() => confinedPath(path)).toThrow(KeyError);
    expect(() => confinedPath(path)).toThrow(reason);
  });

  it("refuses segments that could climb out of a prefix", () => {
    expect(() => userKey("..", "u", "x")).toThrow(KeyError);
    expect(() => userKey("a", "u/v", "x")).toThrow(KeyError);
    expect(() => taskKey("a/b", "x")).toThrow(KeyError);
  });
});
