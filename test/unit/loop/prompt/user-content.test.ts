import { describe, expect, it } from "vitest";
import {
  acceptsOurOutput,
  dataText,
  PRETTY_DATA_CHARS,
  toUserContent,
  unsupportedMediaType,
} from "../../../../src/loop/prompt/user-content.ts";
import { MAX_JSON_DEPTH, tooDeep } from "../../../../src/protocol/json-shape.ts";

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

  it("names where the harness saved each file, and still gives a text file's text", () => {
    const saved = (path: string, size: number) => ({ workspaceFile: { path, size } });
    const blocks = toUserContent([
      {
        raw: b64("# Log\n- fixed"),
        mediaType: "text/markdown",
        filename: "CHANGELOG.md",
        metadata: saved("uploads/CHANGELOG.md", 14),
      },
      { raw: b64("png-bytes"), mediaType: "image/png", metadata: saved("uploads/file-2.png", 9) },
      {
        raw: btoa("\u00ff\u00fe\u0000"),
        mediaType: "application/zip",
        metadata: saved("uploads/a.zip", 3),
      },
      {
        url: "https://x.example/notes.txt",
        mediaType: "text/plain",
        metadata: saved("uploads/notes.txt", 5),
      },
      {
        url: "https://x.example/big.txt",
        mediaType: "text/plain",
        metadata: { workspaceFile: { error: "not saved: it is larger than 1048576 bytes" } },
      },
    ]);
    expect(blocks.map((b) => b.type)).toEqual(["text", "text", "image", "text", "text", "text"]);
    expect(blocks[0]).toEqual({
      type: "text",
      text: "File CHANGELOG.md (text/markdown), saved in the workspace as uploads/CHANGELOG.md (14 bytes):\n\n# Log\n- fixed",
    });
    expect(blocks[1]).toEqual({
      type: "text",
      text: "File image/png, saved in the workspace as uploads/file-2.png (9 bytes):",
    });
    expect(blocks[3]).toEqual({
      type: "text",
      text: "File application/zip, saved in the workspace as uploads/a.zip (3 bytes). Its bytes are not text.",
    });
    expect(blocks[4]).toEqual({
      type: "text",
      text: "Linked file text/plain: https://x.example/notes.txt\nFetched, saved in the workspace as uploads/notes.txt (5 bytes): read it with read_file.",
    });
    expect(blocks[5]).toEqual({
      type: "text",
      text: "Linked file text/plain: https://x.example/big.txt (not saved: it is larger than 1048576 bytes)",
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

describe("data parts stay linear in their size", () => {
  const nested = (depth: number, leaf: unknown = 1): unknown => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it("indents a small value, and never renders more than 4 times the compact size", () => {
    expect(dataText({ a: 1 })).toBe('{\n  "a": 1\n}');
    // As deep as the edge lets through: indenting it would be ~depth² characters.
    const deep = Array.from({ length: 40 }, () => nested(MAX_JSON_DEPTH - 6));
    const compact = JSON.stringify(deep);
    expect(compact.length).toBeLessThan(PRETTY_DATA_CHARS);
    expect(JSON.stringify(deep, null, 2).length).toBeGreaterThan(4 * compact.length);
    expect(dataText(deep)).toBe(compact);
    const wide = Array.from({ length: 5_000 }, (_, i) => ({ i }));
    expect(dataText(wide)).toBe(JSON.stringify(wide));
  });

  it("tooDeep names the path of the first value past the bound, without recursing", () => {
    expect(tooDeep({ a: [1, { b: 2 }] })).toBeNull();
    expect(tooDeep(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(tooDeep(nested(MAX_JSON_DEPTH + 1))).toHaveLength(MAX_JSON_DEPTH);
    // 100,000 levels: a recursive walk would overflow the stack.
    expect(tooDeep({ x: nested(100_000) })?.slice(0, 3)).toEqual(["x", 0, 0]);
  });
});
