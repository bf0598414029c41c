/**
 * The conformance agent's program (src/programs/conformance.ts): each scenario of the official
 * A2A conformance kit, by messageId prefix, and each SUT behaviour of ACTS, by the prefix of the
 * first part's text, as steps over the engine's abilities; follow-ups as the task's scenario says.
 */
import { describe, expect, it } from "vitest";
import { conformanceProgram as program } from "../../../src/programs/conformance.ts";
import { ACTS_BEHAVIOURS } from "../../../src/programs/conformance-scenarios.ts";
import { programFor } from "../../../src/programs/index.ts";
import type { Message } from "../../../src/protocol/wire.ts";

const message = (messageId: string, text = "hi"): Message => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }],
});

describe("the conformance program", () => {
  it("completes with a message, or with one artifact of each part kind", () => {
    expect(program.step(message("tck-complete-task-abc123"), 0, null)).toEqual({
      effects: [],
      end: { kind: "complete", parts: [{ text: "Hello from TCK" }] },
    });
    const artifactOf = (id: string) => {
      const step = program.step(message(id), 0, null);
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
    expect(program.step(message("tck-input-required-s1"), 0, null).end.kind).toBe("input-required");
    expect(program.step(message("tck-reject-task-s1"), 0, null).end).toEqual({
      kind: "reject",
      parts: [{ text: "rejected" }],
    });
    const chunked = program.step(message("tck-stream-artifact-chunked-s1"), 0, null).effects;
    expect(chunked).toEqual([
      { kind: "artifact", artifact: { artifactId: "chunked", parts: [{ text: "chunk-1 " }] } },
      {
        kind: "artifact",
        artifact: { artifactId: "chunked", parts: [{ text: "chunk-2" }] },
        append: true,
        lastChunk: true,
      },
    ]);
    expect(program.step(message("test-resubscribe-message-id-1"), 0, null).end).toEqual({
      kind: "continue",
      afterMs: 4_000,
    });
    expect(program.step(message("test-resubscribe-message-id-1"), 1, null).end.kind).toBe(
      "complete",
    );
  });

  it("echoes any other message and waits for the next one", () => {
    const step = program.step(message("anything-else", "hello there"), 0, null);
    expect(step.effects).toEqual([
      {
        kind: "artifact",
        artifact: { artifactId: "echo", parts: [{ text: "Received: hello there" }] },
        lastChunk: true,
      },
    ]);
    expect(step.end.kind).toBe("input-required");
  });

  it("follows the ACTS behaviours named by the first part's text", () => {
    const acts = (text: string, index = 0) =>
      program.step(message(crypto.randomUUID(), text), index, null);
    expect(acts("tck-complete-task hello").end).toEqual({
      kind: "complete",
      parts: [{ text: "Hello from TCK" }],
    });
    expect(program.reply(message(crypto.randomUUID(), "tck-message-response hi"))).not.toBeNull();
    expect(acts("tck-task-failure now").end.kind).toBe("fail");
    expect(acts("tck-auth-required now").end.kind).toBe("auth-required");
    // Long-running: working updates a second apart, then an artifact and done.
    expect(acts("tck-long-running start", 0)).toEqual({
      effects: [{ kind: "status", text: "Working (1 of 3)" }],
      end: { kind: "continue", afterMs: 1_000 },
    });
    const last = acts("tck-long-running start", 3);
    expect(last.end.kind).toBe("complete");
    expect(last.effects.map((e) => e.kind)).toEqual(["artifact"]);
    // Cancel: it keeps working.
    expect(acts("tck-cancel start", 0).end.kind).toBe("continue");
    expect(acts("tck-cancel start", 10).end.kind).toBe("continue");
    // Streams: one artifact; or three chunks of one.
    expect(acts("tck-stream-basic go").effects).toHaveLength(1);
    expect(
      acts("tck-stream-chunked go").effects.map((e) => e.kind === "artifact" && e.append),
    ).toEqual([undefined, true, true]);
    // The artifact behaviours match by text too.
    expect(acts("tck-artifact-file-url x").effects[0]).toMatchObject({
      artifact: { parts: [{ url: "https://example.com/output.txt" }] },
    });
    for (const behaviour of ACTS_BEHAVIOURS) {
      const step = acts(`${behaviour} x`);
      const replied = program.reply(message(crypto.randomUUID(), `${behaviour} x`));
      expect(
        replied !== null ||
          !step.effects.some((e) => e.kind === "artifact" && e.artifact.artifactId === "echo"),
        behaviour,
      ).toBe(true);
    }
  });

  it("answers a follow-up as the scenario that began the task says", () => {
    const opening = message(crypto.randomUUID(), "tck-multi-turn start");
    expect(program.step(opening, 0, null).end.kind).toBe("input-required");
    const more = program.step(message(crypto.randomUUID(), "here is more input"), 0, opening);
    expect(more.end.kind).toBe("input-required");
    const done = program.step(message(crypto.randomUUID(), "done"), 0, opening);
    expect(done.end).toEqual({ kind: "complete", parts: [{ text: "Conversation complete" }] });
    const auth = message(crypto.randomUUID(), "tck-auth-required go");
    expect(program.step(message(crypto.randomUUID(), "my credentials"), 0, auth).end.kind).toBe(
      "complete",
    );
    // A follow-up with a prefix of its own follows its own scenario; one to a task without
    // follow-ups is echoed.
    expect(program.step(message("tck-complete-task-x"), 0, opening).end.kind).toBe("complete");
    const echoed = program.step(
      message(crypto.randomUUID(), "ok"),
      0,
      message("tck-input-required-1"),
    );
    expect(echoed.effects[0]).toMatchObject({ artifact: { artifactId: "echo" } });
  });

  it("is the program of an agent that names it, and none names an unknown one", () => {
    expect(programFor({ name: "conformance", program: "conformance" })).toBe(program);
    expect(programFor({ name: "writer", program: null })).toBeNull();
    expect(() => programFor({ name: "x", program: "nope" })).toThrow("no program named nope");
  });
});
