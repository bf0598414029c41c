/**
 * Whom the CLI trusts, in Node against small A2A v0.3 agents on 127.0.0.1 (two ports: two
 * origins), no wrangler: the token goes only to the origin it was given for (a card naming
 * another origin gets none, and a warning); the key set a signature names is not fetched
 * through a redirect off the card's origin; `--require-signature` refuses an unsigned card, and
 * a card once seen signed is refused when it comes back unsigned (the pin file, 0600).
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { foreignOrigins } from "../../cli/target.ts";
import { type CardSigner, cardSignerFrom } from "../../src/auth/card-signature.ts";
import { spawnCli } from "./cli-run.ts";
import {
  cardAt,
  echo,
  either,
  type Json,
  json,
  type Origin,
  serveCard,
  startOrigin,
} from "./origins.ts";
import { tempDir } from "./processes.ts";

let a: Origin;
let b: Origin;
let signer: CardSigner;

beforeAll(async () => {
  [a, b] = await Promise.all([startOrigin(), startOrigin()]);
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "trust-key", alg: "ES256" };
  signer = (await cardSignerFrom(JSON.stringify(jwk))) as CardSigner;
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  for (const dir of configDirs) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  a.seen.length = 0;
  b.seen.length = 0;
  a.handle = () => false;
  b.handle = () => false;
});

const configDirs: string[] = [];
/** A fresh config directory, so that no pin of another test applies. */
function freshConfig() {
  configDirs.push(tempDir("a2a-trust-"));
  return { XDG_CONFIG_HOME: configDirs.at(-1) as string };
}

describe("the token goes only to the origin it was given for", () => {
  it("a card naming another origin: that origin gets no token, and the user is told", async () => {
    a.handle = serveCard(() => cardAt(`${b.url}/`));
    b.handle = echo;
    const run = await spawnCli(["send", `${a.url}/`, "hello", "--token", "secret-token"]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain("echo: hello");
    expect(run.err).toContain(
      `a2a: the card of ${a.url}/ points at ${b.url}, not ${a.url}: the token is not sent there\n`,
    );
    expect(a.seen.map((r) => r.authorization)).toEqual(["Bearer secret-token"]);
    expect(b.seen.length).toBeGreaterThan(0);
    expect(b.seen.map((r) => r.authorization)).toEqual(b.seen.map(() => undefined));
  });

  it("the same token in A2A_TOKEN, and the card's own origin: sent, no warning", async () => {
    a.handle = either(
      serveCard(() => cardAt(`${a.url}/`)),
      echo,
    );
    const run = await spawnCli(["send", `${a.url}/`, "hi"], { env: { A2A_TOKEN: "env-token" } });
    expect(run.code, run.err).toBe(0);
    expect(run.err).not.toContain("token is not sent");
    expect(a.seen.map((r) => `${r.method} ${r.authorization}`)).toEqual([
      "GET Bearer env-token",
      "POST Bearer env-token",
    ]);
  });

  it("the other origin asking for a token: says the token was held back, and why", async () => {
    a.handle = serveCard(() => cardAt(`${b.url}/`));
    b.handle = (_req, res) => {
      json(res, { error: "who are you" }, 401);
      return true;
    };
    const run = await spawnCli(["send", `${a.url}/`, "hello", "--token", "secret-token"]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `a2a: ${b.url} (named by the card of ${a.url}/) asks for a token; yours is for ${a.url} only and was not sent there\n`,
    );
    expect(b.seen.every((r) => r.authorization === undefined)).toBe(true);
  });

  it("finds the foreign origins of a v1.0 card's interfaces too", () => {
    const card = {
      supportedInterfaces: [
        { url: "https://a.example/agents/x/", protocolBinding: "JSONRPC" },
        { url: "https://b.example:8443/x", protocolBinding: "HTTP+JSON" },
        { url: "not a url" },
        null,
      ],
    };
    expect(foreignOrigins(card, "https://a.example")).toEqual(["https://b.example:8443"]);
  });
});

describe("the key set a signature names", () => {
  /** A signed card on `a` whose jku is `a`'s /.well-known/jwks.json. */
  const signedOnA = async () => signer.sign(cardAt(`${a.url}/`), `${a.url}/.well-known/jwks.json`);

  it("is not fetched through a redirect to another origin: INVALID, exit 1", async () => {
    const card = await signedOnA();
    a.handle = either(
      serveCard(() => card),
      (req, res) => {
        if (req.url !== "/.well-known/jwks.json") return false;
        res.writeHead(302, { location: `${b.url}/jwks.json` });
        res.end();
        return true;
      },
    );
    b.handle = (_req, res) => {
      json(res, { keys: [signer.publicJwk] });
      return true;
    };
    const run = await spawnCli(["card", `${a.url}/`], { env: freshConfig() });
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `signature: INVALID (the key set ${a.url}/.well-known/jwks.json redirects to ${b.url}, off the card's origin ${a.url}: not followed)`,
    );
    expect(b.seen).toEqual([]);
  });

  it("is fetched through a redirect within the card's origin: verified", async () => {
    const card = await signedOnA();
    a.handle = either(
      serveCard(() => card),
      (req, res) => {
        if (req.url === "/.well-known/jwks.json") {
          res.writeHead(302, { location: "/keys/current.json" });
          res.end();
          return true;
        }
        if (req.url !== "/keys/current.json") return false;
        json(res, { keys: [signer.publicJwk] });
        return true;
      },
    );
    const run = await spawnCli(["card", `${a.url}/`], { env: freshConfig() });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain("signature: verified (ES256, key trust-key)");
  });
});

describe("unsigned cards", () => {
  let current: Json;
  const cardUrl = () => `${a.url}/.well-known/agent-card.json`;

  beforeEach(() => {
    a.handle = either(
      serveCard(() => current),
      (req, res) => {
        if (req.url !== "/.well-known/jwks.json") return false;
        json(res, { keys: [signer.publicJwk] });
        return true;
      },
      echo,
    );
  });

  it("--require-signature refuses one (card and send), exit 1", async () => {
    current = cardAt(`${a.url}/`);
    const env = freshConfig();
    const plain = await spawnCli(["card", `${a.url}/`], { env });
    expect(plain.code).toBe(0);
    expect(plain.out).toContain("signature: none (the card is not signed)");
    const card = await spawnCli(["card", `${a.url}/`, "--require-signature"], { env });
    expect(card.code).toBe(1);
    expect(card.err).toBe(`a2a: the card at ${cardUrl()} is not signed (--require-signature)\n`);
    const send = await spawnCli(["send", `${a.url}/`, "hi", "--require-signature"], { env });
    expect(send.code).toBe(1);
    expect(send.err).toBe(`a2a: the card at ${cardUrl()} is not signed (--require-signature)\n`);
    expect(a.seen.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("a card seen signed before is refused unsigned; the pin file is the user's alone", async () => {
    const env = freshConfig();
    current = await signer.sign(cardAt(`${a.url}/`), `${a.url}/.well-known/jwks.json`);
    const signed = await spawnCli(["card", `${a.url}/`], { env });
    expect(signed.code, signed.err).toBe(0);
    expect(signed.out).toContain("signature: verified (ES256, key trust-key)");
    const pins = join(env.XDG_CONFIG_HOME, "a2a", "signed-cards.json");
    expect(statSync(pins).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(pins, "utf8")).cards[cardUrl()]).toMatchObject({
      kid: "trust-key",
      alg: "ES256",
    });
    // Still signed: send verifies it and goes on.
    expect((await spawnCli(["send", `${a.url}/`, "hi"], { env })).code).toBe(0);

    current = cardAt(`${a.url}/`);
    a.seen.length = 0;
    const stripped = await spawnCli(["card", `${a.url}/`], { env });
    expect(stripped.code).toBe(1);
    expect(stripped.out).toContain("signature: none");
    expect(stripped.err).toContain(
      `a2a: the card at ${cardUrl()} is not signed, but was when last verified (key trust-key, `,
    );
    expect(stripped.err).toContain(`remove it from ${pins}`);
    const send = await spawnCli(["send", `${a.url}/`, "hi"], { env });
    expect(send.code).toBe(1);
    expect(send.err).toContain("is not signed, but was when last verified");
    expect(a.seen.filter((r) => r.method === "POST")).toEqual([]);
    // Another user (another config directory) has not seen it signed.
    const other = freshConfig();
    expect((await spawnCli(["card", `${a.url}/`], { env: other })).code).toBe(0);
    expect(existsSync(join(other.XDG_CONFIG_HOME, "a2a", "signed-cards.json"))).toBe(false);
  });

  it("an unreadable pin file is named, not ignored", async () => {
    const env = freshConfig();
    current = await signer.sign(cardAt(`${a.url}/`), `${a.url}/.well-known/jwks.json`);
    await spawnCli(["card", `${a.url}/`], { env });
    const pins = join(env.XDG_CONFIG_HOME, "a2a", "signed-cards.json");
    writeFileSync(pins, "{not json");
    const run = await spawnCli(["send", `${a.url}/`, "hi"], { env });
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `a2a: ${pins} is not a list of signed cards: fix it or remove it (it is rebuilt as cards are verified)\n`,
    );
  });
});
