/** Webhook signatures: GitHub's and the generic timestamped form, at the replay window's edges. */
import { describe, expect, it } from "vitest";
import {
  signGeneric,
  signGithub,
  verifyGeneric,
  verifyGithub,
} from "../../../src/triggers/signatures.ts";
import { renderPrompt } from "../../../src/triggers/template.ts";

describe("webhook signatures", () => {
  it("verifies GitHub's X-Hub-Signature-256 and nothing else", async () => {
    const body = '{"zen":"Keep it logically awesome."}';
    const signature = await signGithub("s3cret", body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifyGithub("s3cret", body, signature)).toBe(true);
    expect(
      await verifyGithub("s3cret", body, signature.toUpperCase().replace("SHA256", "sha256")),
    ).toBe(true);
    expect(await verifyGithub("other", body, signature)).toBe(false);
    expect(await verifyGithub("s3cret", `${body} `, signature)).toBe(false);
    expect(await verifyGithub("s3cret", body, null)).toBe(false);
    expect(await verifyGithub("s3cret", body, "sha1=abc")).toBe(false);
  });

  it("accepts a generic signature within the window, to the second, and refuses past it", async () => {
    const body = '{"ok":true}';
    const now = 1_800_000_000_000;
    const at = async (offset: number) => {
      const ts = now / 1000 + offset;
      return verifyGeneric("k", body, await signGeneric("k", body, ts), String(ts), 300, now);
    };
    expect(await at(0)).toBe(true);
    expect(await at(-300)).toBe(true);
    expect(await at(300)).toBe(true);
    expect(await at(-301)).toBe(false);
    expect(await at(301)).toBe(false);
    const ts = String(now / 1000);
    expect(
      await verifyGeneric("k", body, await signGeneric("k", body, now / 1000 - 1), ts, 300, now),
    ).toBe(false);
    expect(
      await verifyGeneric("k", body, await signGeneric("k", body, now / 1000), "soon", 300, now),
    ).toBe(false);
  });
});

describe("prompt templates", () => {
  it("fills payload fields, $ values and the whole payload", () => {
    const payload = {
      repo: { name: "widgets", topics: ["a", "b"] },
      commits: [{ id: "c1" }],
      n: 3,
    };
    expect(
      renderPrompt(
        "{{repo.name}} {{ commits.0.id }} {{n}} {{repo.topics}} [{{missing.x}}] {{$event}}",
        payload,
        {
          event: "push",
        },
      ),
    ).toBe('widgets c1 3 ["a","b"] [] push');
    expect(renderPrompt("{{$json}}", { a: 1 })).toBe('{\n  "a": 1\n}');
  });
});
