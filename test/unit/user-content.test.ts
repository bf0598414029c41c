import { describe, expect, it } from "vitest";
import {
  acceptsOurOutput,
  toUserContent,
  unsupportedMediaType,
} from "../../src/loop/user-content.ts";

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
});
