/**
 * A task whose tools reach no workspace file never calls the workspace object: its first step
 * learns that from the agent's tools, reads no snapshot (the note lists no files) and its end
 * writes no HANDOFF.md. The same user's task with an agent that has file tools still gets both.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceFor } from "../../src/workspace/client.ts";
import type { WireTask } from "../helpers/a2a.ts";
import { userMessage } from "../helpers/a2a.ts";
import { newUser, rpcAs } from "../helpers/as-user.ts";
import { modelRequests, scenario } from "../helpers/fake-model.ts";
import { until } from "../helpers/until.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const name = `chat-${crypto.randomUUID().slice(0, 8)}`;
const identity = [
  "---",
  `name: ${name}`,
  "description: Talks; reads and writes no file.",
  "tools:",
  "  allow: [web_fetch, write_todos]",
  "---",
  "You chat.",
].join("\n");

beforeAll(async () => {
  expect((await putIdentity(name, identity)).status).toBe(200);
});

afterAll(async () => {
  await deleteIdentity(name);
});

const firstText = (request: { body: { messages: Array<{ content: unknown }> } } | undefined) =>
  JSON.stringify(request?.body.messages[0]?.content);

describe("a task whose tools reach no file", () => {
  it("reads no workspace snapshot and writes no end note; an agent with file tools does both", async () => {
    const user = await newUser();
    const before = workspaceFor(env.WORKSPACES, name, user.id);
    expect((await before.write("notes.md", "kept", { taskId: "setup" })).ok).toBe(true);

    const s = await scenario([{ text: "Hello." }]);
    const sent = await rpcAs<{ task: WireTask }>(
      user.token,
      "SendMessage",
      { message: userMessage(`hi ${s.marker}`) },
      `/agents/${name}/`,
    );
    expect(sent.body.result?.task.status.state).toBe("TASK_STATE_COMPLETED");
    const [request] = await modelRequests(s.id);
    expect(firstText(request)).toContain("Workspace: empty");
    expect(firstText(request)).not.toContain("notes.md");
    // Its end wrote nothing to the workspace (the one file is the one put there first).
    const listed = await before.list("");
    expect(listed.ok && listed.value.entries.map((e) => e.path)).toEqual(["notes.md"]);

    // The writer (file tools) for the same user: its snapshot lists its files, its end writes HANDOFF.md.
    const writer = workspaceFor(env.WORKSPACES, "writer", user.id);
    expect((await writer.write("draft.md", "text", { taskId: "setup" })).ok).toBe(true);
    const w = await scenario([{ text: "Noted." }]);
    await rpcAs(
      user.token,
      "SendMessage",
      { message: userMessage(`hi ${w.marker}`) },
      "/agents/writer/",
    );
    expect(firstText((await modelRequests(w.id))[0])).toContain("draft.md");
    await until(
      async () => {
        const files = await writer.list("");
        return files.ok ? files.value.entries.map((e) => e.path) : [];
      },
      (paths) => paths.includes("HANDOFF.md"),
    );
  });
});
