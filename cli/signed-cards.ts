/**
 * The cards this CLI has seen signed: a small file, `signed-cards.json` under
 * `$XDG_CONFIG_HOME/a2a/` (default `~/.config/a2a/`), mode 0600, keyed by card URL, recording the
 * key of the last verified signature and when. A card once seen signed that comes back unsigned
 * is refused (its signature stripped on the way, or its owner stopped signing: then the user
 * removes its entry). Only the fact of signing is pinned, not the key: keys rotate, and a new
 * key still has to verify against the key set on the card's own origin.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { CliError } from "./errors.ts";

/** What is remembered of a card seen signed. */
export interface SignedCardPin {
  /** The key of the last verified signature. */
  kid: string;
  alg: string;
  /** When it was last verified (ISO 8601). */
  seen: string;
}

const PinFile = z.object({
  cards: z.record(z.string(), z.object({ kid: z.string(), alg: z.string(), seen: z.string() })),
});

/** The directory of the CLI's own files: `$XDG_CONFIG_HOME/a2a`, else `~/.config/a2a`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || join(homedir(), ".config");
  return join(base, "a2a");
}

/** The pin file's path. */
export const pinFilePath = (env: NodeJS.ProcessEnv = process.env) =>
  join(configDir(env), "signed-cards.json");

/** Every pin in the file (none when there is no file); a CliError when it is unreadable. */
function readPins(path: string): Record<string, SignedCardPin> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return {};
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return PinFile.parse(JSON.parse(text)).cards;
  } catch {
    throw new CliError(
      `${path} is not a list of signed cards: fix it or remove it (it is rebuilt as cards are verified)`,
    );
  }
}

/** The pin of the card at `cardUrl`, if it was seen signed. */
export function pinOf(cardUrl: string, path = pinFilePath()): SignedCardPin | undefined {
  const pins = readPins(path);
  return Object.hasOwn(pins, cardUrl) ? pins[cardUrl] : undefined;
}

/** Records that the card at `cardUrl` verified with `kid` (written 0600, replaced whole). */
export function recordPin(
  cardUrl: string,
  pin: Omit<SignedCardPin, "seen">,
  path = pinFilePath(),
): void {
  const cards = { ...readPins(path), [cardUrl]: { ...pin, seen: new Date().toISOString() } };
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ cards }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
