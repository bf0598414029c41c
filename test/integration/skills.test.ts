/**
 * An agent's Agent Skills end to end in workerd, on an agent an admin uploads with its skills
 * (PUT /api/admin/agents/<name>/identity as JSON): the card lists them; the model is told each
 * skill's name and description and not its instructions, which reach it only once it loads the
 * skill (skill_load), and a file beside them once it reads it (skill_read); an invalid skill is
 * refused with its file, line and field; a text upload keeps no uploaded skills. GET
 * /api/agents/<name>/skills lists them (the catalogue), without their text.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { expectCompleted, fetchWorker, sendTask, userMessage } from "../helpers/a2a.ts";
import { callWorker } from "../helpers/as-user.ts";
import { modelRequests, offeredTools, scenario } from "../helpers/fake-model.ts";
import { toolTurn } from "../helpers/turns.ts";
import { deleteIdentity, putIdentity } from "../helpers/uploaded-agents.ts";

const NAME = `skilled-${crypto.randomUUID().slice(0, 8)}`;
const IDENTITY = `---\nname: ${NAME}\ntags: [orders]\n---\nYou answer questions about orders.\n`;
const BODY = "# Refunds\n\n1. Find the order.\n2. REFUND-STEP-MARKER: check it is within 30 days.";
const SKILL = `---\nname: refunds\ndescription: Handles refund requests. Use it when a customer wants money back.\n---\n\n${BODY}\n`;
const POLICY = "POLICY-MARKER: refunds within 30 days of delivery.";
const admin = { Authorization: `Bearer ${env.ADMIN_API_KEY}` };

/** Uploads `body` as the agent's identity (JSON); the response. */
const upload = (body: unknown, name = NAME) =>
  callWorker(`/api/admin/agents/${name}/identity`, {
    method: "PUT",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const skills = { refunds: { "SKILL.md": SKILL, "references/policy.md": POLICY } };

/** Everything a model request said, as text: its system prompt and its messages. */
const said = (request: { body: { system?: unknown; messages: unknown } } | undefined) => ({
  system: JSON.stringify(request?.body.system ?? ""),
  messages: JSON.stringify(request?.body.messages ?? ""),
});

afterAll(async () => {
  await deleteIdentity(NAME);
});

describe("an agent's skills", () => {
  it("come with an uploaded identity: on its card, and back from GET as they were put", async () => {
    const put = await upload({ identity: IDENTITY, skills });
    expect(put.status, await put.clone().text()).toBe(200);
    const card = (await (
      await fetchWorker(`/agents/${NAME}/.well-known/agent-card.json`, {
        headers: { "A2A-Version": "1.0" },
      })
    ).json()) as {
      skills: Array<{ id: string; name: string; description: string; tags: string[] }>;
    };
    expect(card.skills).toEqual([
      expect.objectContaining({
        id: "refunds",
        name: "refunds",
        description: "Handles refund requests. Use it when a customer wants money back.",
        tags: ["orders"],
      }),
    ]);
    const got = await callWorker(`/api/admin/agents/${NAME}/identity`, {
      headers: { ...admin, accept: "application/json" },
    });
    expect(await got.json()).toEqual({ identity: IDENTITY, skills });
    const text = await callWorker(`/api/admin/agents/${NAME}/identity`, { headers: admin });
    expect(await text.text()).toBe(IDENTITY);
  });

  it("are listed by GET /api/agents/<name>/skills: the card's skills and the loadable folders", async () => {
    expect((await upload({ identity: IDENTITY, skills })).status).toBe(200);
    const response = await fetchWorker(`/api/agents/${NAME}/skills`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      agent: NAME,
      skills: [
        expect.objectContaining({
          id: "refunds",
          description: "Handles refund requests. Use it when a customer wants money back.",
        }),
      ],
      loadable: [
        {
          name: "refunds",
          description: "Handles refund requests. Use it when a customer wants money back.",
          file: `agents/${NAME}/skills/refunds/SKILL.md (uploaded)`,
          files: [{ path: "references/policy.md", bytes: POLICY.length }],
        },
      ],
    });
    // The catalogue names the files; their text reaches only the model that loads them.
    expect(text).not.toContain("POLICY-MARKER");
    expect(text).not.toContain("REFUND-STEP-MARKER");
    expect((await fetchWorker(`/api/agents/no-such-${NAME}/skills`)).status).toBe(404);
  });

  it("are listed to the model by name and description; their instructions and files reach it when it loads them", async () => {
    expect((await upload({ identity: IDENTITY, skills })).status).toBe(200);
    const s = await scenario([
      toolTurn("skill_load", { name: "refunds" }),
      toolTurn("skill_read", { name: "refunds", path: "references/policy.md" }),
      { text: "Refunded." },
    ]);
    const task = await sendTask(
      { message: userMessage(`I want my money back ${s.marker}`) },
      { path: `/agents/${NAME}/` },
    );
    expectCompleted(task, "Refunded.");
    expect(await offeredTools(s.id)).toEqual(expect.arrayContaining(["skill_load", "skill_read"]));
    const [first, second, third] = (await modelRequests(s.id)).map(said);
    expect(first?.system).toContain("<name>refunds</name>");
    expect(first?.system).toContain("Use it when a customer wants money back.");
    for (const marker of ["REFUND-STEP-MARKER", "POLICY-MARKER"]) {
      expect(first?.system).not.toContain(marker);
      expect(first?.messages).not.toContain(marker);
    }
    expect(second?.messages).toContain("REFUND-STEP-MARKER");
    expect(second?.messages).toContain("references/policy.md");
    expect(second?.messages).not.toContain("POLICY-MARKER");
    expect(third?.messages).toContain("POLICY-MARKER");
  });

  it("are refused when one is invalid, naming its file, line and field; nothing is stored", async () => {
    const bad = { refunds: { "SKILL.md": SKILL.replace("name: refunds", "name: returns") } };
    const other = `other-${crypto.randomUUID().slice(0, 8)}`;
    const refused = await upload(
      { identity: IDENTITY.replace(`name: ${NAME}`, `name: ${other}`), skills: bad },
      other,
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      `agents/${other}/skills/refunds/SKILL.md (uploaded):2:7: frontmatter.name: "returns" must equal the folder name "refunds"`,
    );
    expect((await fetchWorker(`/agents/${other}/.well-known/agent-card.json`)).status).toBe(404);
    const noSkillFile = await upload({ identity: IDENTITY, skills: { refunds: { "a.md": "x" } } });
    expect(noSkillFile.status).toBe(400);
    const wrongShape = await upload({ identity: IDENTITY, skills: { Refunds: {} } });
    expect(wrongShape.status).toBe(400);
  });

  it("are dropped by a later upload of the identity alone (an agent of no bundled skills)", async () => {
    expect((await upload({ identity: IDENTITY, skills })).status).toBe(200);
    expect((await putIdentity(NAME, IDENTITY)).status).toBe(200);
    const s = await scenario([{ text: "ok" }]);
    await sendTask({ message: userMessage(`hi ${s.marker}`) }, { path: `/agents/${NAME}/` });
    expect(await offeredTools(s.id)).not.toContain("skill_load");
    expect(said((await modelRequests(s.id))[0]).system).not.toContain("refunds");
  });
});
