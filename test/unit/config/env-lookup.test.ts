import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { envNamed } from "../../../src/config/env-lookup.ts";

describe("envNamed", () => {
  it("finds the Worker's own bindings and vars", () => {
    expect(envNamed(env, "TASKS")).toBe(env.TASKS);
    expect(envNamed({ TOKEN: "s3cret" }, "TOKEN")).toBe("s3cret");
    expect(envNamed(env, "NO_SUCH_BINDING")).toBeUndefined();
  });

  it("never answers with an inherited property, whatever name configuration gives", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(envNamed(env, name)).toBeUndefined();
      expect(envNamed({}, name)).toBeUndefined();
    }
  });
});
