/**
 * The conformance agent's program (src/programs/conformance.ts): each scenario of the official
 * A2A conformance kit, by messageId prefix, as steps over the engine's abilities.
 */
import { describe, expect, it } from "vitest";
import { conformanceProgram as program } from "../../../src/programs/conformance.ts";
import { programFor } from "../../../src/programs/index.ts";
import type { Message } from "../../../src/protocol/wire.ts";

const message = (messageId: string, text = "hi"): Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }],
});

describe("the conformance program", () => {
  it("completes with a message, or with one artifact of each part kind", () => {
    expect(program.step(message("tck-complete-task-abc123"), 0)).toEqual({
      effects: [],
      end: { kind: "complete", parts: [{ text: "Hello from TCK" }] },
    });
    const artifactOf = (id: string) => {
      const step = program.step(message(id), 0);
      expect(step.end).toEqual({ kind: "complete" });
      const [effect] = step.effects;
      return effect?.kind === "artifact" ? effect.artifact.parts[0] : undefined;
    };
    expect(artifactOf("tck-artifact-text-s1-jsonrpc")).toEqual({ text: "Generated text content" });
    expect(artifactOf("tck-artifact-file-s1")).toEqual({
      raw: "dGNr",
      filename: "output.txt",
      mediaType: "text/plain",
    });
    // The longest matching prefix wins: file-url is not file.
    expect(artifactOf("tck-artifact-file-url-s1")).toEqual({
      url: "https://example.com/output.txt",
      filename: "output.txt",
      mediaType: "text/plain",
    });
    expect(artifactOf("tck-artifact-data-s1")).toEqual({ data: { key: "value", count: 42 } });
  });

  it("answers tck-message-response with a Message instead of a task", () => {
    expect(program.reply(message("tck-message-response-s1"))).toEqual([
      { text: "Direct message response" },
    ]);
    expect(program.reply(message("tck-complete-task-s1"))).toBeNull();
  });

  it("asks for input, rejects, streams chunks and keeps a long task working", () => {
    expect(program.step(message("tck-input-required-s1"), 0).end.kind).toBe("input-required");
    expect(program.step(message("tck-reject-task-s1"), 0).end).toEqual({
      kind: "reject",
      parts: [{ text: "rejected" }],
    });
    const chunked = program.step(message("tck-stream-artifact-chunked-s1"), 0).effects;
    expect(chunked).toEqual([
      { kind: "artifact", artifact: { artifactId: "chunked", parts: [{ text: "chunk-1 " }] } },
      {
        kind: "artifact",
        artifact: { artifactId: "chunked", parts: [{ text: "chunk-2" }] },
        append: true,
        lastChunk: true,
      },
    ]);
    expect(program.step(message("test-resubscribe-message-id-1"), 0).end).toEqual({
      kind: "continue",
      afterMs: 4_000,
    });
    expect(program.step(message("test-resubscribe-message-id-1"), 1).end.kind).toBe("complete");
  });

  it("echoes any other message and waits for the next one", () => {
    const step = program.step(message("anything-else", "hello there"), 0);
    expect(step.effects).toEqual([
      {
        kind: "artifact",
        artifact: { artifactId: "echo", parts: [{ text: "Received: hello there" }] },
        lastChunk: true,
      },
    ]);
    expect(step.end.kind).toBe("input-required");
  });

  it("is the program of an agent that names it, and none names an unknown one", () => {
    expect(programFor({ name: "conformance", program: "conformance" })).toBe(program);
    expect(programFor({ name: "writer", program: null })).toBeNull();
    expect(() => programFor({ name: "x", program: "nope" })).toThrow("no program named nope");
  });
});
