/**
 * The CARD-SIGN-001..003 checks `npm run tck` makes (scripts/card-sign-check.ts), on cards signed
 * here with a key whose set a local server publishes (the `jku`): a card signed by the harness's
 * signer passes all three in both generations' shapes; a card signed the way @a2a-js/sdk 1.3.0
 * does (its canonical form drops `securityRequirements`, whose `bearer: {}` looks empty to it)
 * fails the payload checks; a card holding a default fails CARD-SIGN-001 only; an unsigned card
 * fails all three. Node only (a key-set server on 127.0.0.1).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCardSignature } from "../../scripts/card-sign-check.ts";
import { type CardSigner, cardSignerFrom } from "../../src/auth/card-signature.ts";

let server: Server;
let jku: string;
let signer: CardSigner;

const V1_CARD = {
  name: "checked",
  description: "A card to check.",
  version: "1.0.0",
  supportedInterfaces: [{ url: "http://h/a/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
  securityRequirements: [{ schemes: { bearer: {} } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }],
};
const V03_CARD = {
  protocolVersion: "0.3.0",
  name: "checked",
  description: "A card to check.",
  url: "http://h/a/",
  version: "1.0.0",
  capabilities: { streaming: true },
  securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
  security: [{ bearer: [] }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }],
};

const verdicts = async (card: Record<string, unknown>) =>
  Object.fromEntries((await checkCardSignature(card)).map((c) => [c.id, c.passed]));

beforeAll(async () => {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "check-key", alg: "ES256" };
  signer = (await cardSignerFrom(JSON.stringify(jwk))) as CardSigner;
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: [signer.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jku = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("CARD-SIGN checks", () => {
  it("pass on cards the harness signs, of both generations", async () => {
    for (const card of [V1_CARD, V03_CARD])
      expect(await verdicts(await signer.sign(card, jku))).toEqual({
        "CARD-SIGN-001": true,
        "CARD-SIGN-002": true,
        "CARD-SIGN-003": true,
      });
  });

  it("fail the payload on a card signed by the SDK's canonical form, which leaves out securityRequirements", async () => {
    const header = { alg: "ES256", kid: signer.kid, typ: "JOSE", jku };
    const signed = await generateAgentCardSignature(
      signer.key,
      header,
    )(V1_CARD as unknown as AgentCard);
    const card = JSON.parse(JSON.stringify(signed)) as Record<string, unknown>;
    expect(card.securityRequirements).toEqual(V1_CARD.securityRequirements);
    expect(await verdicts(card)).toEqual({
      "CARD-SIGN-001": false,
      "CARD-SIGN-002": false,
      "CARD-SIGN-003": true,
    });
  });

  it("fail CARD-SIGN-001 alone for a property holding its default, and all three unsigned", async () => {
    const defaulted = await signer.sign({ ...V1_CARD, iconUrl: "" }, jku);
    expect(await verdicts(defaulted)).toEqual({
      "CARD-SIGN-001": false,
      "CARD-SIGN-002": true,
      "CARD-SIGN-003": true,
    });
    expect(Object.values(await verdicts(V1_CARD))).toEqual([false, false, false]);
  });
});
