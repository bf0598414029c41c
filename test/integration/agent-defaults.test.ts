/**
 * What an agent gets that its IDENTITY.md does not say: the deployment's `DEFAULT_MODEL` (the
 * test env sets claude-opus-4-6) for a file that names no model, with the file's `effort: max`
 * sent as it is where that model takes it; and no run_code for the shipped read-only agents.
 */
import { describe, expect, it } from "vitest";
import { expectCompleted, sendTask, userMessage } from "../helpers/a2a.ts";
import { modelRequests, offeredTools, scenario } from "../helpers/fake-model.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

describe("agent defaults", () => {
  it("runs an agent whose file names no model on DEFAULT_MODEL, with effort max", async () => {
    const name = `unnamed-${crypto.randomUUID().slice(0, 8)}`;
    const text = ["---", `name: ${name}`, "effort: max", "---", "You answer in one word."].join(
      "\n",
    );
    expect((await putIdentity(name, text)).status).toBe(200);
    try {
      const s = await scenario([{ text: "Done." }]);
      const task = await sendTask(
        { message: userMessage(`go ${s.marker}`) },
        { path: `/agents/${name}/` },
      );
      expectCompleted(task, "Done.");
      expect(task.metadata?.model).toMatchObject({ name: "claude-opus-4-6" });
      const [request] = await modelRequests(s.id);
      const body = request?.body as unknown as { model: string; output_config?: unknown };
      expect(body.model).toBe("claude-opus-4-6");
      expect(body.output_config).toEqual({ effort: "max" });
    } finally {
      await deleteIdentity(name);
    }
  });

  it("a named model stays; the read-only researcher and deep-thinker get no run_code", async () => {
    for (const agent of ["researcher", "deep-thinker"]) {
      const s = await scenario([{ text: "ok" }]);
      await sendTask({ message: userMessage(`hi ${s.marker}`) }, { path: `/agents/${agent}/` });
      const tools = await offeredTools(s.id);
      expect(tools).toContain("read_file");
      expect(tools).not.toContain("run_code");
      expect((await modelRequests(s.id))[0]?.body.model).toBe("claude-sonnet-4-6");
    }
    const s = await scenario([{ text: "ok" }]);
    await sendTask({ message: userMessage(`hi ${s.marker}`) }, { path: "/agents/writer/" });
    expect(await offeredTools(s.id)).toContain("run_code");
  });
});
