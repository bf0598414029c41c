import { describe, expect, it } from "vitest";
import {
  acceptsOurOutput,
  toUserContent,
  unsupportedMediaType,
} from "../../../src/loop/user-content.ts";

const b64 = (s: string) => btoa(s);

describe("message parts to model content", () => {
  it("maps text, data, images, PDFs and text files", () => {
    const blocks = toUserContent([
      { text: "hello" },
      { data: { a: 1 } },
      { raw: b64("png-bytes"), mediaType: "image/png" },
      { raw: b64("%PDF"), mediaType: "application/pdf" },
      { raw: b64("name,age\nada,36"), mediaType: "text/csv", filename: "people.csv" },
      { url: "https://x.example/cat.jpg", mediaType: "image/jpeg" },
      { url: "https://x.example/doc" },
    ]);
    expect(blocks.map((b) => b.type)).toEqual([
      "text",
      "text",
      "image",
      "document",
      "text",
      "image",
      "text",
    ]);
    expect(blocks[1]).toEqual({ type: "text", text: '```json\n{\n  "a": 1\n}\n```' });
    expect(blocks[4]).toEqual({
      type: "text",
      text: "File people.csv (text/csv):\n\nname,age\nada,36",
    });
    expect(blocks[6]).toEqual({
      type: "text",
      text: "Linked file unknown type: https://x.example/doc",
    });
  });

  it("names the first media type it cannot take", () => {
    expect(
      unsupportedMediaType([{ text: "a" }, { raw: b64("x"), mediaType: "image/png" }]),
    ).toBeNull();
    expect(unsupportedMediaType([{ raw: b64("x"), mediaType: "application/zip" }])).toBe(
      "application/zip",
    );
    expect(unsupportedMediaType([{ raw: b64("x") }])).toBe("(none)");
  });

  it("checks acceptedOutputModes against text output", () => {
    expect(acceptsOurOutput(undefined)).toBe(true);
    expect(acceptsOurOutput([])).toBe(true);
    expect(acceptsOurOutput(["text/plain"])).toBe(true);
    expect(acceptsOurOutput(["text/*"])).toBe(true);
    expect(acceptsOurOutput(["image/png"])).toBe(false);
  });

  it("checks parts against an agent's own input modes, ranges included", () => {
    const zip = [{ raw: b64("x"), mediaType: "application/zip" }];
    expect(unsupportedMediaType(zip, ["*/*"])).toBeNull();
    expect(unsupportedMediaType([{ raw: b64("x") }], ["*/*"])).toBeNull();
    expect(unsupportedMediaType(zip, ["application/*"])).toBeNull();
    expect(unsupportedMediaType(zip, ["image/*"])).toBe("application/zip");
    const csv = [{ raw: b64("a,b"), mediaType: "text/csv" }];
    expect(unsupportedMediaType(csv, ["text/plain"])).toBeNull();
    expect(unsupportedMediaType(csv, ["image/png"])).toBe("text/csv");
  });

  it("checks acceptedOutputModes against an agent's own output modes", () => {
    const modes = ["text/plain", "application/json"];
    expect(acceptsOurOutput(["application/json"], modes)).toBe(true);
    expect(acceptsOurOutput(["application/*"], modes)).toBe(true);
    expect(acceptsOurOutput(["application/json"])).toBe(false);
    expect(acceptsOurOutput(["image/*"], modes)).toBe(false);
  });
});
